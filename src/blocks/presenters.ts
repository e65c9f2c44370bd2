import type { Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import type { BlockRow } from './queries.ts';
import type { BlockList, BlockRecord, LiftReceipt } from './schemas.ts';

export function presentBlock(row: BlockRow): Static<typeof BlockRecord> {
  return {
    id: row.id,
    scope: row.scope,
    widened: row.widened === 1,
    conversation_id: row.conversation_id,
    agent_id: row.agent_id,
    reason: row.reason,
    created_at: isoTime(Number(row.created_at)),
    expires_at: row.expires_at === null ? null : isoTime(Number(row.expires_at)),
  };
}

export function presentBlockList(rows: BlockRow[], nextCursor: string | null): Static<typeof BlockList> {
  return { blocks: rows.map(presentBlock), next_cursor: nextCursor };
}

export const presentLift = (row: BlockRow): Static<typeof LiftReceipt> => ({ ok: true, id: row.id });
