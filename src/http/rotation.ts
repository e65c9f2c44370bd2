import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { described, HexToken } from './schemas.ts';

/** A credential's rotation (issue #32): the body, and what makes its retry safe. */
export const RotationBody = Type.Object(
  {
    client_access_token: Type.Optional(
      described(HexToken, 'Optional: your new token, so a lost answer costs nothing: the same request again (with the old token) answers 200 duplicate.'),
    ),
  },
  { title: 'RotationBody', description: 'Optional; without a client token the server makes the new one and shows it once.' },
);
export type RotationBody = Static<typeof RotationBody>;

export const ROTATION_DESCRIPTION =
  'Replaces the token you send with a new one: the new token works at once and the old one is refused at once, on every instance. Rotate when a token may have leaked (a log, a screenshot, a shared file).';

/** The receipt of a rotation: the id of what it opens, and the new token. */
export function rotationReceipt<Id extends string>(idField: Id, idSchema: TSchema) {
  return Type.Object({
    [idField]: idSchema,
    access_token: Type.String({ description: 'The new token; the old one no longer works. Shown only here (and to an identical retry with a client token).' }),
    duplicate: Type.Boolean({ description: 'true: an identical retry of an earlier rotation (200).' }),
  } as Record<Id | 'access_token' | 'duplicate', TSchema>);
}

/** What a rotation needs from the request: the hash of the token presented and of the new one. */
export interface RotationInput {
  presentedHash: string;
  newHash: string;
  /** A client-made new token is the key that makes the rotation safe to retry; a server-made one is known to no retry. */
  clientSupplied: boolean;
  now: number;
}
