import type { Kysely } from 'kysely';
import { conversationThread } from '../../alerts/alerts.ts';
import type { Charge, Limiter } from '../../limits/limiter.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import { counterBump, counterName, invitationCountBump } from '../overview-counters.ts';
import { executeTogether, rowsOf } from '../../store/sent-together.ts';
import { prepare } from '../../store/prepared.ts';
import { previewOf } from '../preview.ts';
import { defineWrite } from '../../writes/write.ts';
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
  limiter: Limiter;
  now: number;
}

/** A first contact is charged to its source and to the whole inbox. */
const charges = (source: string): Charge[] => [
  ['CONVERSATION_SOURCE', source],
  ['CONVERSATION_GLOBAL', 'global', 'inbox_at_capacity'],
];

const insertConversation = prepare<ConversationRow, never>(CONVERSATION_COLUMNS, (db, p) => db.insertInto('conversations').values(p));

/**
 * A first contact (CONTRACT §3.1): the per-source and global limits, the conversation, its first
 * message and the overview counters that include it, in one transaction. A full limit throws its
 * 429 from the limiter (shared infrastructure below the feature), which rolls all of it back.
 *
 * A look at the limits comes first, so that a client past its limit is refused without writing
 * anything. Then the writes go to the store together (on PostgreSQL in one round trip), the limits
 * charged and the counters bumped after the inserts: every creation updates the same global rows,
 * and on PostgreSQL a row stays locked from its update to the commit, so the creations queue on them
 * for as short a time as possible.
 */
async function insertFirstContact(trx: Kysely<Database>, input: NewConversation): Promise<ConversationRow> {
  await input.limiter.ensureAvailableAll(trx, charges(input.source));
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
  };
  const charge = input.limiter.charge(trx, charges(input.source));
  const inserts = [
    insertConversation.compile(trx, conversation),
    insertMessage.compile(trx, { id: newId(), conversation_id: conversation.id, role: 'visitor', body: input.message, client_message_id: null, created_at: input.now }),
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
  const settled = await executeTogether(trx, [...inserts, ...(charge ? [charge.statement] : []), ...bumps]);
  // The first failure stands: on PostgreSQL every statement after it fails as well.
  const rows = settled.map((one) => rowsOf<{ bucket: string }>(one));
  charge?.settle(rows[inserts.length]!);
  return conversation;
}

/** A first contact, written once under a client-supplied token: the same request again is the earlier conversation (CONTRACT §3.1). */
export const createConversation = defineWrite({
  name: 'conversation creation',
  retry: {
    find: async (db, input: NewConversation) => (input.clientSuppliedToken ? findEarlierConversation(db, input.tokenHash, input.fingerprint) : undefined),
    conflict: 'client_token_conflict',
  },
  run: insertFirstContact,
  refusals: {},
  changes: (conversation) => [{ type: 'conversation.created', conversation_id: conversation.id }],
  // Only a new conversation is news: the earlier one a retry finds carries no alert.
  alert: (conversation, input) => ({
    kind: 'new',
    thread: conversationThread(conversation.id),
    source: input.source,
    excerpt: { name: input.name, text: input.message },
  }),
});
