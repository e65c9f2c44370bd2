import { ApiError } from '../http/errors.ts';

/** A position in the operator list: the (updated_at, id) of the last row of a page. */
export interface ListPosition {
  updatedAt: number;
  id: string;
}

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of a small JSON pair, so the format may change without a new parameter. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.updatedAt, position.id])).toString('base64url');
}

export function decodeCursor(cursor: string): ListPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && parsed.length === 2) {
    const [updatedAt, id] = parsed as [unknown, unknown];
    if (Number.isSafeInteger(updatedAt) && (updatedAt as number) >= 0 && typeof id === 'string' && ID.test(id)) {
      const position = { updatedAt: updatedAt as number, id };
      // Base64 decoding forgives stray characters; only the exact text this list issued is accepted.
      if (encodeCursor(position) === cursor) return position;
    }
  }
  throw new ApiError('invalid_request', { field: 'cursor', message: 'The cursor is not one this list returned.' });
}
