import type { Kysely } from 'kysely';
import { conversationThread } from '../../alerts/alerts.ts';
import type { Clock } from '../../clock.ts';
import type { Config } from '../../config.ts';
import type { Limiter } from '../../limits/limiter.ts';
import { laterOf } from '../../store/later-of.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import { bumpCounters, counterName } from '../overview-counters.ts';
import { prepare } from '../../store/prepared.ts';
import { isForeignKeyViolation } from '../../store/errors.ts';
import { executeTogether, rowsOf, type Settled } from '../../store/sent-together.ts';
import { anyBlockHolds, blockHolds } from '../../blocks/queries.ts';
import type { Sources } from '../../http/client-source.ts';
import { safeEqual } from '../../tokens.ts';
import { defineWrite, earlierMessage, type Refuse, type RetryKey, type WriteError } from '../../writes/write.ts';
import { previewOf } from '../preview.ts';
import { findMessageByClientId, insertMessage, type Role } from '../queries.ts';

type Db = Kysely<Database>;

/**
 * The visitor is charged to their source's follow-up limit and alerts the operator; the operator is
 * neither. The visitor's write also checks the hash of the token it presented (a rotation or
 * revocation another instance committed holds at once) and the blocks on its sources, and keeps the
 * origin of its verified Web Bot Auth signature (null when unsigned) on the message.
 */
export type Sender = { role: 'visitor'; sources: Sources; tokenHash: string; verifiedOrigin: string | null } | { role: 'admin' };

export interface NewMessage {
  conversationId: string;
  sender: Sender;
  body: string;
  clientMessageId: string | null;
  /** CONVERSATION_MAX_MESSAGES: the slots a conversation has, both sides together. */
  cap: number;
  limiter: Limiter;
  now: number;
}

type Messaging = { config: Pick<Config, 'conversationMaxMessages'>; limiter: Limiter; clock: Clock };

/** A message in a conversation, by either side, under the configured cap and at the time now. */
export function conversationMessage(
  { config, limiter, clock }: Messaging,
  conversationId: string,
  sender: Sender,
  message: { body: string; clientMessageId: string | null },
): NewMessage {
  return { conversationId, sender, ...message, cap: config.conversationMaxMessages, limiter, now: clock.now() };
}

/** Why a message was not written: the conversation is at its cap, not open, or gone; or its visitor's token was revoked, or a block holds. */
type NoSlot = 'full' | 'closed' | 'missing' | 'revoked' | 'blocked';

/**
 * One message in a conversation, for the visitor and the operator alike (CONTRACT §3.3, §4.1): the
 * slot, the row and the limit in one transaction, so the cap is exact. The three statements go to
 * the store together (on PostgreSQL one round trip, not three): the message is inserted and the
 * limit charged before the slot is known to be free, and a refusal (no slot, or a full limit,
 * thrown as its 429 by the limiter) rolls all of it back. The slot answers first, so a closed or
 * full conversation is refused as such whatever the limit. The limit is charged last: on
 * PostgreSQL the shard it takes stays locked until the commit (src/limits/shards.ts).
 */
async function appendMessage(trx: Db, input: NewMessage, refuse: Refuse<NoSlot>): Promise<{ messageId: string }> {
  const { conversationId, sender, now } = input;
  const unreadIncrement = sender.role === 'visitor' ? 1 : 0;
  const messageId = newId();
  const charge = sender.role === 'visitor' ? input.limiter.charge(trx, [['FOLLOWUP_SOURCE', sender.sources.source]]) : undefined;
  const slot = { conversationId, unreadIncrement, now, cap: input.cap, preview: previewOf(input.body), role: sender.role };
  const [reserved, inserted, charged] = await executeTogether(trx, [
    sender.role === 'visitor'
      ? reserveVisitorSlot.compile(trx, { ...slot, tokenHash: sender.tokenHash, source: sender.sources.source, wide: sender.sources.wide })
      : reserveSlot.compile(trx, slot),
    insertMessage.compile(trx, {
      id: messageId,
      conversation_id: conversationId,
      role: sender.role,
      body: input.body,
      client_message_id: input.clientMessageId,
      created_at: now,
      verified_origin: sender.role === 'visitor' ? sender.verifiedOrigin : null,
    }),
    ...(charge ? [charge.statement] : []),
  ]);
  const claimed = rowsOf<{ unread_count: number }>(reserved!)[0];
  if (!claimed) return refuse(await whyNoSlot(trx, input, inserted!));
  rowsOf(inserted!);
  if (charge) await charge.settle(rowsOf<{ bucket: string }>(charged!));
  if (unreadIncrement === 1 && claimed.unread_count === 1) await bumpCounters(trx, { [counterName.unreadThreads]: 1 });
  return { messageId };
}

type SlotParams = {
  conversationId: string;
  unreadIncrement: number;
  now: number;
  cap: number;
  preview: string;
  role: Role;
};

/**
 * Claims room for one more message in one conditional update, so the cap is exact under any
 * concurrency: only an open conversation below `cap` gets a row back.
 */
const reserveSlot = prepare<SlotParams, { unread_count: number }>(['conversationId', 'unreadIncrement', 'now', 'cap', 'preview', 'role'], (db, p) => claimSlot(db, p));

function claimSlot(db: Db, p: SlotParams) {
  return db
      .updateTable('conversations')
      .set((eb) => ({
        message_count: eb('message_count', '+', 1),
        unread_count: eb('unread_count', '+', p.unreadIncrement),
        revision: eb('revision', '+', 1),
        updated_at: laterOf('updated_at', p.now),
        last_message_at: laterOf('last_message_at', p.now),
        // The list's preview rides in the update that claims the slot: no extra write.
        last_message_preview: p.preview,
        last_message_role: p.role,
      }))
      .where('id', '=', p.conversationId)
      .where('status', '=', 'open')
      .where('message_count', '<', p.cap)
      .returning('unread_count');
}

type VisitorSlotParams = SlotParams & Sources & { tokenHash: string };

/**
 * The visitor's claim, which also holds only while the token presented is the conversation's and not
 * revoked, no block of the conversation holds, and no block holds on the request's source or the
 * one the conversation came from: checked by the statement the write makes anyway.
 */
const reserveVisitorSlot = prepare<VisitorSlotParams, { unread_count: number }>(
  ['conversationId', 'unreadIncrement', 'now', 'cap', 'preview', 'role', 'tokenHash', 'source', 'wide'],
  (db, p) =>
    claimSlot(db, p)
      // The visitor writing brings a snoozed conversation back.
      .set({ snoozed_until: null })
      .where('token_hash', '=', p.tokenHash)
      .where('token_revoked_at', 'is', null)
      .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<=', p.now)]))
      .where((eb) => eb.not(blockHolds([p.source, p.wide, eb.ref('conversations.source'), eb.ref('conversations.source_wide')], p.now))),
);

/**
 * Why the conversation had no slot: gone (its message then named no conversation, which on
 * PostgreSQL also ended the transaction), or closed, or full. Any other failure of the insert (a
 * client_message_id that a retry committed meanwhile) is thrown as it is, for perform to answer.
 */
async function whyNoSlot(trx: Db, { conversationId, sender, now }: NewMessage, inserted: Settled): Promise<NoSlot> {
  if (!inserted.ok) {
    if (isForeignKeyViolation(inserted.error)) return 'missing';
    throw inserted.error;
  }
  const current = await trx
    .selectFrom('conversations')
    .select(['status', 'token_hash', 'token_revoked_at', 'blocked_until', 'source', 'source_wide'])
    .where('id', '=', conversationId)
    .executeTakeFirst();
  if (!current) return 'missing';
  if (sender.role === 'visitor') {
    if (!safeEqual(sender.tokenHash, current.token_hash)) return 'missing';
    if (current.token_revoked_at !== null) return 'revoked';
    const keys = [sender.sources.source, sender.sources.wide, current.source, current.source_wide].filter((key) => key !== null);
    if ((current.blocked_until ?? 0) > now || (await anyBlockHolds(trx, keys, now))) return 'blocked';
  }
  return current.status === 'open' ? 'full' : 'closed';
}

/**
 * Written at most once per client_message_id, in the sender's own space: the messages' unique index
 * on (conversation, role, client_message_id) refuses the repeat's insert, so the key is looked up
 * only after a failure. A repeat may also meet a full, closed or revoked conversation, a block or
 * its limit first (its own earlier write may have taken the last slot); perform then answers as the
 * earlier write all the same.
 */
const byClientMessageId: RetryKey<NewMessage, { messageId: string }> = {
  find: async (db, message) => {
    const { conversationId, clientMessageId } = message;
    if (clientMessageId === null) return undefined;
    return earlierMessage(await findMessageByClientId(db, conversationId, message.sender.role, clientMessageId), message.body);
  },
  conflict: 'client_message_id_conflict',
  checkedByUniqueIndex: true,
};

const messageChange = ({ messageId }: { messageId: string }, message: NewMessage) => [
  { type: 'conversation.message' as const, conversation_id: message.conversationId, message_id: messageId },
];

const noSlot = (closed: WriteError): Record<NoSlot, WriteError> => ({
  full: 'conversation_full',
  closed,
  missing: 'conversation_not_found',
  revoked: 'token_revoked',
  blocked: 'blocked',
});

/** The visitor's follow-up (CONTRACT §3.3): charged to its source, and the operator is alerted. */
export const followUp = defineWrite({
  name: 'follow-up',
  retry: byClientMessageId,
  run: appendMessage,
  refusals: noSlot('conversation_closed'),
  changes: messageChange,
  alert: (_written, message) =>
    message.sender.role === 'visitor'
      ? { kind: 'reply', thread: conversationThread(message.conversationId), source: message.sender.sources.source, excerpt: { text: message.body } }
      : undefined,
});

/** The operator's reply (CONTRACT §4.1): a closed conversation must be reopened first. */
export const operatorReply = defineWrite({
  name: 'operator reply',
  retry: byClientMessageId,
  run: appendMessage,
  refusals: noSlot({ code: 'conversation_closed', message: 'The conversation is closed or marked as spam; reopen it first (status "open").' }),
  changes: messageChange,
});
