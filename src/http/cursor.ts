import { ApiError } from './errors.ts';

/**
 * A position in a list ordered by (updated_at, id), newest first: the last row of a page. A list
 * walked in groups one after another (the operator's unread first) also says in which group it is.
 */
export interface ListPosition {
  updatedAt: number;
  id: string;
  group?: ListGroup | undefined;
}

export const LIST_GROUPS = ['unread', 'read'] as const;
export type ListGroup = (typeof LIST_GROUPS)[number];

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Opaque to clients: base64url of a small JSON array, so the format may change without a new parameter. */
export function encodeCursor(position: ListPosition): string {
  const pair = [position.updatedAt, position.id];
  return Buffer.from(JSON.stringify(position.group === undefined ? pair : [...pair, position.group])).toString('base64url');
}

export function decodeCursor(cursor: string): ListPosition {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (Array.isArray(parsed) && (parsed.length === 2 || parsed.length === 3)) {
    const [updatedAt, id, group] = parsed as [unknown, unknown, unknown];
    const knownGroup = parsed.length === 2 || LIST_GROUPS.includes(group as ListGroup);
    if (Number.isSafeInteger(updatedAt) && (updatedAt as number) >= 0 && typeof id === 'string' && ID.test(id) && knownGroup) {
      const position = { updatedAt: updatedAt as number, id, group: group as ListGroup | undefined };
      // Base64 decoding forgives stray characters; only the exact text this list issued is accepted.
      if (encodeCursor(position) === cursor) return position;
    }
  }
  throw new ApiError('invalid_request', { field: 'cursor', message: 'The cursor is not one this list returned.' });
}

/**
 * A keyset page from `limit + 1` rows: the first `limit`, and the position of the last of them when
 * the extra row shows that more follow, else null.
 */
export function keysetPage<Row extends { updated_at: number; id: string }>(rows: Row[], limit: number): { page: Row[]; next: ListPosition | null } {
  const more = rows.length > limit;
  const page = more ? rows.slice(0, limit) : rows;
  const last = page[page.length - 1];
  return { page, next: more && last ? { updatedAt: last.updated_at, id: last.id } : null };
}
