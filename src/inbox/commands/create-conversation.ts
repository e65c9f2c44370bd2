import type { Kysely } from 'kysely';
import { conversationThread } from '../../alerts/alerts.ts';
import type { Charge, Limiter } from '../../limits/limiter.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import { counterBump, counterName, invitationCountBump } from '../overview-counters.ts';
import { executeTogether, rowsOf } from '../../store/sent-together.ts';
import { prepare } from '../../store/prepared.ts';
import { previewOf } from '../preview.ts';
import { defineWrite, type Refuse } from '../../writes/write.ts';
import { blockOnSources, holds } from '../../blocks/queries.ts';
import { PROOF_REFUSALS, proofRequired, spendProof, type PressureLimits, type ProofOfWork, type ProofRefusal } from '../../challenges/proof.ts';
import { CONVERSATION_COLUMNS, findEarlierConversation, insertMessage, type ConversationRow } from '../queries.ts';

const INITIAL_REVIEW_LABEL = 'unreviewed';

export interface NewConversation {
  tokenHash: string;
  /** A client_access_token is the key that makes the first contact safe to retry; a token the server made is known to no retry. */
  clientSuppliedToken: boolean;
  /** What tells a retry of this request from another request under the same client token. */
  fingerprint: string;
  name: string;
  invitationId: string | null;
  message: string;
  /** The keyed hash of the client address, charged and named in the alert. */
  source: string;
  /** The keyed hash of its /24, which a widened block covers. */
  sourceWide: string;
  /** The origin of a verified Web Bot Auth signature: charged to its own budget instead of the source's, and kept on the conversation. */
  verifiedOrigin: string | null;
  /** The proof of work the request carries, when CHALLENGE_MODE asks for one; undefined in mode off. */
  proof: ProofOfWork | undefined;
  limiter: Limiter;
  now: number;
}

/** A first contact is charged to its source (a verified agent: to its origin's budget) and to the whole inbox. */
const charges = ({ source, verifiedOrigin }: NewConversation): Charge[] => [
  verifiedOrigin === null ? ['CONVERSATION_SOURCE', source] : ['VERIFIED_AGENT', `conversation:${verifiedOrigin}`],
  ['CONVERSATION_GLOBAL', 'global', 'inbox_at_capacity'],
];

const PRESSURE: PressureLimits = { global: 'CONVERSATION_GLOBAL', source: 'CONVERSATION_SOURCE' };

const insertConversation = prepare<ConversationRow, never>(CONVERSATION_COLUMNS, (db, p) => db.insertInto('conversations').values(p));

/**
 * A first contact (CONTRACT §3.1): the per-source and global limits, the conversation, its first
 * message and the overview counters that include it, in one transaction; a block on its source
 * (looked up in the same round trip as the writes) refuses it and rolls it all back. A full limit throws its
 * 429 from the limiter (shared infrastructure below the feature), which rolls all of it back.
 *
 * A look at the limits comes first, so that a client past its limit is refused without writing
 * anything; what it saw decides whether proof of work is asked under pressure, and a solution, when
 * one is needed, is spent next (src/challenges/proof.ts). Then the writes go to the store together (on PostgreSQL in one round trip):
 * the inserts, the counters bumped, the limits charged. Every creation updates the same global limit
 * and counters, and on PostgreSQL a row stays locked from its update to the commit, so both are
 * spread over shards (src/limits/shards.ts, overview-counters.ts). The counters come before the
 * limits because a charge whose shard is full takes another one afterwards (settle), waiting if it
 * must: had the counters come between, a creation holding a counter shard could wait for a limit
 * shard held by one waiting for that counter shard, a deadlock PostgreSQL breaks only after
 * deadlock_timeout (1 s). In this order every creation takes counter rows before limit rows.
 */
async function insertFirstContact(trx: Kysely<Database>, input: NewConversation, refuse: Refuse<'blocked' | ProofRefusal>): Promise<ConversationRow> {
  const use = await input.limiter.ensureAvailableAll(trx, charges(input));
  const unproven = input.proof && (await spendProof(trx, input.proof, proofRequired(input.proof, use, PRESSURE)));
  if (unproven) return refuse(unproven);
  const conversation: ConversationRow = {
    id: newId(),
    token_hash: input.tokenHash,
    fingerprint: input.fingerprint,
    name: input.name,
    invitation_id: input.invitationId,
    status: 'open',
    review_label: INITIAL_REVIEW_LABEL,
    operator_note: '',
    created_at: input.now,
    updated_at: input.now,
    last_message_at: input.now,
    message_count: 1,
    unread_count: 1,
    revision: 1,
    last_message_preview: previewOf(input.message),
    last_message_role: 'visitor',
    source: input.source,
    source_wide: input.sourceWide,
    previous_token_hash: null,
    token_revoked_at: null,
    blocked_until: null,
    snoozed_until: null,
    verified_origin: input.verifiedOrigin,
  };
  const charge = input.limiter.charge(trx, charges(input));
  const inserts = [
    insertConversation.compile(trx, conversation),
    insertMessage.compile(trx, { id: newId(), conversation_id: conversation.id, role: 'visitor', body: input.message, client_message_id: null, created_at: input.now, verified_origin: input.verifiedOrigin }),
  ];
  const bumps = [
    counterBump(trx, {
      [counterName.conversations]: 1,
      [counterName.status('open')]: 1,
      [counterName.unreadThreads]: 1,
      [counterName.label(INITIAL_REVIEW_LABEL)]: 1,
    }),
    invitationCountBump(trx, input.invitationId, 1),
  ].filter((bump) => bump !== undefined);
  const blockLookup = blockOnSources.compile(trx, { source: input.source, wide: input.sourceWide, now: input.now });
  const [blocked, ...settled] = await executeTogether(trx, [blockLookup, ...inserts, ...bumps, ...(charge ? [charge.statement] : [])]);
  if (holds(rowsOf<{ blocked: unknown }>(blocked!))) return refuse('blocked');
  // The first failure stands: on PostgreSQL every statement after it fails as well.
  const rows = settled.map((one) => rowsOf<{ bucket: string }>(one));
  await charge?.settle(rows[inserts.length + bumps.length]!);
  return conversation;
}

/** A first contact, written once under a client-supplied token: the same request again is the earlier conversation (CONTRACT §3.1). */
export const createConversation = defineWrite({
  name: 'conversation creation',
  retry: {
    find: async (db, input: NewConversation) => (input.clientSuppliedToken ? findEarlierConversation(db, input.tokenHash, input.fingerprint) : undefined),
    conflict: 'client_token_conflict',
    // Looked up first, although token_hash is unique: a repeat past its limit would otherwise meet
    // the limit's look before the key, and count as a refusal in the metrics while answered 200.
  },
  run: insertFirstContact,
  refusals: { blocked: 'blocked', ...PROOF_REFUSALS },
  changes: (conversation) => [{ type: 'conversation.created', conversation_id: conversation.id }],
  // Only a new conversation is news: the earlier one a retry finds carries no alert.
  alert: (conversation, input) => ({
    kind: 'new',
    thread: conversationThread(conversation.id),
    source: input.source,
    excerpt: { name: input.name, text: input.message },
  }),
});
