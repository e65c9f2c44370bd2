import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { described, HexToken } from './schemas.ts';

/** A credential's rotation (issue #32): the body, and what makes its retry safe. */
export const RotationBody = Type.Object(
  {
    client_access_token: Type.Optional(
      described(HexToken, 'Optional: your new token; the same request again answers 200 duplicate.'),
    ),
  },
  { title: 'RotationBody', description: 'Optional.' },
);
export type RotationBody = Static<typeof RotationBody>;

export const ROTATION_DESCRIPTION = 'Replaces the token you send (rotate one that may have leaked): the new one works at once, the old one no longer.';

/** The receipt of a rotation, one component per credential: the id of what it opens, and the new token. */
export function rotationReceipt<Id extends string>(idField: Id, idSchema: TSchema, title: string) {
  return Type.Object(
    {
      [idField]: described(idSchema, 'Unchanged.'),
      access_token: Type.String({ description: 'The new token, shown only here.' }),
      duplicate: Type.Boolean({ description: 'true: an identical retry.' }),
    } as Record<Id | 'access_token' | 'duplicate', TSchema>,
    { title, description: '200 with duplicate true: an identical retry (same old token and client_access_token).' },
  );
}

export const ROTATED = 'Created: a new token; the old one no longer works.';

/** What a rotation needs from the request: the hash of the token presented and of the new one. */
export interface RotationInput {
  presentedHash: string;
  newHash: string;
  /** A client-made new token is the key that makes the rotation safe to retry; a server-made one is known to no retry. */
  clientSupplied: boolean;
  now: number;
}

/** The refusal of a rotation to the token already in use. */
export const UNCHANGED_TOKEN = { code: 'invalid_request', field: 'client_access_token', message: 'The new token must differ from the one you send.' } as const;
