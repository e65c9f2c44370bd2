import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import { defineWrite, type RetryKey } from '../../writes/write.ts';
import { markConversationBlock, type BlockRow } from '../queries.ts';
import type { BlockScope } from '../tables.ts';

type Db = Kysely<Database>;

export interface NewBlock {
  scope: BlockScope;
  /** What the operator blocks from: exactly one of the two. */
  conversationId: string | undefined;
  agentId: string | undefined;
  /** A source block covers the source's /24 (IPv6: its /64, which the source already is). */
  widen: boolean;
  expiresAt: number | null;
  reason: string;
  now: number;
  /** Makes a retry of the same request find this block (an action link's form nonce); none from the API. */
  requestKey?: string;
}

type Refusal = 'conversation_missing' | 'agent_missing' | 'scope_mismatch' | 'source_unknown';

/** The address hashes and id of what the block is made from, or why there is none. */
async function subjectOf(trx: Db, block: NewBlock): Promise<{ id: string; source: string | null; source_wide: string | null } | Refusal> {
  if (block.conversationId !== undefined) {
    if (block.scope === 'agent') return 'scope_mismatch';
    const row = await trx.selectFrom('conversations').select(['id', 'source', 'source_wide']).where('id', '=', block.conversationId).executeTakeFirst();
    return row ?? 'conversation_missing';
  }
  if (block.scope === 'conversation') return 'scope_mismatch';
  const row = await trx.selectFrom('peer_agents').select(['id', 'source', 'source_wide']).where('id', '=', block.agentId!).executeTakeFirst();
  return row ?? 'agent_missing';
}

/** The block a request with the same key made: the same one when it was made from the same conversation with the same scope. */
const byRequestKey: RetryKey<NewBlock, BlockRow> = {
  async find(db, block) {
    if (block.requestKey === undefined) return undefined;
    const row = await db.selectFrom('blocks').selectAll().where('request_key', '=', block.requestKey).executeTakeFirst();
    if (!row) return undefined;
    return row.conversation_id === (block.conversationId ?? null) && row.agent_id === (block.agentId ?? null) && row.scope === block.scope ? { kind: 'same', result: row } : { kind: 'other' };
  },
  conflict: { code: 'invalid_request', message: 'This form already made another block; open the page again to make a new one.' },
};

/**
 * A block (issue #32), from a conversation or a forum agent. A source block is held on the keyed
 * hash that conversation or agent came from; a conversation's own block is also written on the
 * conversation (blocked_until), which its reads and follow-ups check in the queries they make anyway.
 */
export const createBlock = defineWrite({
  name: 'block creation',
  retry: byRequestKey,
  async run(trx, block: NewBlock, refuse): Promise<BlockRow> {
    const subject = await subjectOf(trx, block);
    if (typeof subject === 'string') return refuse(subject);
    let subjectKey = subject.id;
    if (block.scope === 'source') {
      const source = block.widen ? subject.source_wide : subject.source;
      if (source === null) return refuse('source_unknown');
      subjectKey = source;
    }
    const row: BlockRow = {
      id: newId(),
      scope: block.scope,
      subject_key: subjectKey,
      widened: block.scope === 'source' && block.widen ? 1 : 0,
      conversation_id: block.conversationId ?? null,
      agent_id: block.agentId ?? null,
      reason: block.reason,
      created_at: block.now,
      expires_at: block.expiresAt,
      request_key: block.requestKey ?? null,
    };
    await trx.insertInto('blocks').values(row).execute();
    if (block.scope === 'conversation') await markConversationBlock(trx, subject.id, block.now);
    return row;
  },
  refusals: {
    conversation_missing: 'conversation_not_found',
    agent_missing: 'agent_not_found',
    scope_mismatch: { code: 'invalid_request', field: 'scope', message: 'scope "agent" needs agent_id and scope "conversation" needs conversation_id.' },
    source_unknown: { code: 'invalid_request', field: 'scope', message: 'This was created before sources were kept; block it by scope "conversation" or "agent".' },
  },
  changes: (row) => (row.scope === 'conversation' ? [{ type: 'conversation.updated', conversation_id: row.conversation_id! }] : []),
});
