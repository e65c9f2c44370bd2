import type { Kysely } from 'kysely';
import { conversationThread, type AlertEvent } from '../../alerts/alerts.ts';
import type { Limiter } from '../../limits/limiter.ts';
import type { Command } from '../../store/commands.ts';
import { laterOf } from '../../store/later-of.ts';
import type { Database } from '../../store/schema.ts';
import { newId } from '../../tokens.ts';
import { bumpCounters, counterName } from '../overview-counters.ts';
import { prepare } from '../../store/prepared.ts';
import { previewOf } from '../preview.ts';
import { insertMessage, type Role } from '../queries.ts';

type Db = Kysely<Database>;

/** The visitor is charged to their source's follow-up limit and alerts the operator; the operator is neither. */
export type Sender = { role: 'visitor'; source: string } | { role: 'admin' };

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

/** Why a message was not written: the conversation is at its cap, not open, or gone. */
export type AppendRefusal = { kind: 'full' } | { kind: 'closed' } | { kind: 'missing' };

export type AppendOutcome = { kind: 'written'; messageId: string; alert?: AlertEvent | undefined } | AppendRefusal;

/**
 * One message in a conversation, for the visitor and the operator alike (CONTRACT §3.3, §4.1): the
 * slot, the limit and the row in one transaction, so the cap is exact. A full follow-up limit
 * throws its 429 from limiter.consume (shared infrastructure below the feature), which rolls the
 * reserved slot and the message back. The limit is charged last: on PostgreSQL its row (one per source) stays
 * locked from the charge to the commit, and a source's follow-ups queue on it for that long.
 */
export const appendMessage: Command<NewMessage, AppendOutcome> = async (trx, input) => {
  const { conversationId, sender, now } = input;
  const refusal = await reserveMessageSlot(trx, conversationId, sender.role, now, input.cap, previewOf(input.body));
  if (refusal) return refusal;
  const messageId = newId();
  await insertMessage.execute(trx, {
    id: messageId,
    conversation_id: conversationId,
    role: sender.role,
    body: input.body,
    client_message_id: input.clientMessageId,
    created_at: now,
  });
  if (sender.role === 'visitor') await input.limiter.consume(trx, 'FOLLOWUP_SOURCE', sender.source);
  const alert: AlertEvent | undefined =
    sender.role === 'visitor' ? { kind: 'reply', thread: conversationThread(conversationId), source: sender.source } : undefined;
  return { kind: 'written', messageId, alert };
};

type SlotParams = {
  conversationId: string;
  unreadIncrement: number;
  now: number;
  cap: number;
  preview: string;
  role: Role;
};

const reserveSlot = prepare<SlotParams, { unread_count: number }>(
  ['conversationId', 'unreadIncrement', 'now', 'cap', 'preview', 'role'],
  (db, p) =>
    db
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
      .returning('unread_count'),
);

/**
 * Claims room for one more message in one conditional update, so the cap is exact under any
 * concurrency: only an open conversation below `cap` gets a row back. Otherwise, says why not.
 */
async function reserveMessageSlot(trx: Db, conversationId: string, role: Role, now: number, cap: number, preview: string): Promise<AppendRefusal | undefined> {
  const unreadIncrement = role === 'visitor' ? 1 : 0;
  const reserved = await reserveSlot.first(trx, { conversationId, unreadIncrement, now, cap, preview, role });
  if (reserved) {
    if (unreadIncrement === 1 && reserved.unread_count === 1) await bumpCounters(trx, { [counterName.unreadThreads]: 1 });
    return undefined;
  }
  const current = await trx.selectFrom('conversations').select('status').where('id', '=', conversationId).executeTakeFirst();
  if (!current) return { kind: 'missing' };
  return { kind: current.status === 'open' ? 'full' : 'closed' };
}
