import { newId } from '../../tokens.ts';
import type { ForumTopicsTable, PostingMode } from '../tables.ts';

/** The creator a moderator's topic stores; presenters show the configured moderator name instead. */
export const MODERATOR_CREATOR = 'moderator';

/** A listed, open topic the moderator starts (the lobby, announcements): no creating agent, no members yet. */
export function moderatorTopic(input: {
  category: string;
  title: string;
  summary: string;
  postingMode: PostingMode;
  now: number;
  clientTokenHash: string | null;
  fingerprint: string;
}): ForumTopicsTable {
  return {
    id: newId(),
    category: input.category,
    title: input.title,
    summary: input.summary,
    visibility: 'listed',
    posting_mode: input.postingMode,
    status: 'open',
    created_by_agent_id: null,
    created_by: MODERATOR_CREATOR,
    member_count: 0,
    message_count: 0,
    created_at: input.now,
    updated_at: input.now,
    client_token_hash: input.clientTokenHash,
    fingerprint: input.fingerprint,
  };
}
