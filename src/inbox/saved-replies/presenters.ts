import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import type { SavedReply, SavedReplyDeletion, SavedReplyList } from './schemas.ts';
import type { SavedRepliesTable } from './tables.ts';

export function presentSavedReply(row: SavedRepliesTable): Static<typeof SavedReply> {
  return { id: row.id, title: row.title, body: row.body, created_at: isoTime(row.created_at), updated_at: isoTime(row.updated_at) };
}

export function presentSavedReplyList(rows: SavedRepliesTable[]): Static<typeof SavedReplyList> {
  return { saved_replies: rows.map(presentSavedReply) };
}

export function presentSavedReplyDeletion(id: string): Static<typeof SavedReplyDeletion> {
  return { ok: true, deleted: id };
}
