import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { operatorReply, type NewMessage } from '../../src/inbox/commands/append-message.ts';
import { perform } from '../../src/writes/perform.ts';
import { refuse, Refused } from '../../src/writes/write.ts';
import { adminHeaders, countRows, createConversation, expectError, sharedAppWithFreshLimits } from '../helpers.ts';

const app = sharedAppWithFreshLimits();

/** A reply the write inserts before it learns that the conversation has no slot for it. */
async function replyIntoClosedConversation(): Promise<NewMessage> {
  const t = app();
  const { conversation_id: conversationId } = await createConversation(t);
  const closed = await t.inject({ method: 'POST', url: `/api/admin/conversations/${conversationId}/status`, headers: adminHeaders(), payload: { status: 'closed' } });
  expect(closed.statusCode).toBe(200);
  return { conversationId, sender: { role: 'admin' }, body: 'Stored anyway?', clientMessageId: null, cap: 200, limiter: t.app.services.limiter, now: t.clock.now() };
}

describe('a refusal rolls back what the write did before it, whatever runs the write', () => {
  it('through the route (perform): 409 and no message', async () => {
    const t = app();
    const reply = await replyIntoClosedConversation();
    const before = await countRows(t, 'messages');
    const refused = await t.inject({ method: 'POST', url: `/api/admin/conversations/${reply.conversationId}/messages`, headers: adminHeaders(), payload: { message: reply.body } });
    expectError(refused, 409, 'conversation_closed');
    await expect(perform(t.app.services, operatorReply, reply)).rejects.toMatchObject({ code: 'conversation_closed' });
    expect(await countRows(t, 'messages')).toBe(before);
  });

  it('run by the store directly, or in a transaction of its own: the refusal is thrown and no message is stored', async () => {
    const t = app();
    const reply = await replyIntoClosedConversation();
    const before = await countRows(t, 'messages');
    await expect(t.store.write((trx, input) => operatorReply.run(trx, input, refuse), reply)).rejects.toMatchObject({ reason: 'closed' });
    await expect(t.store.db.transaction().execute((trx) => operatorReply.run(trx, reply, refuse))).rejects.toBeInstanceOf(Refused);
    expect(await countRows(t, 'messages')).toBe(before);
  });

  it('a full conversation keeps exactly its cap, the refused message rolled back', async () => {
    const t = app();
    const { conversation_id: conversationId } = await createConversation(t);
    const reply: NewMessage = { conversationId, sender: { role: 'admin' }, body: 'One too many', clientMessageId: null, cap: 1, limiter: t.app.services.limiter, now: t.clock.now() };
    await expect(t.store.write((trx, input) => operatorReply.run(trx, input, refuse), reply)).rejects.toMatchObject({ reason: 'full' });
    expect(await t.store.db.selectFrom('messages').select('id').where('conversation_id', '=', conversationId).execute()).toHaveLength(1);
  });
});

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/**
 * Where a transaction may be opened without perform: the store itself, perform, the bookkeeping
 * below the features that makes no change and takes no retry key (a limit charge, an administrator's known address, an alert budget,
 * which thread a Telegram alert is about, an alert channel's last delivery, a reminder's claim, a push subscription its push service reports gone,
 * the webhook outbox's settlement and its bound), a read that wants one snapshot, and the offline importer, which
 * runs with every server stopped (nobody to wake, no retry key) and rolls a dry run back by throwing.
 */
const TRANSACTIONS_ALLOWED = new Set([
  'writes/perform.ts',
  'http/auth.ts',
  'http/admin-trust.ts',
  'alerts/budgets.ts',
  'alerts/status.ts',
  'alerts/reminders.ts',
  'alerts/web-push.ts',
  'telegram/alert-messages.ts',
  'webhooks/delivery.ts',
  'webhooks/outbox-bound.ts',
  'forum/topics/topic-page.ts',
  'cli/import-reference.ts',
]);

describe('one runner', () => {
  it('no feature opens a transaction or runs a command but through perform', () => {
    const offenders = sourceFiles(SRC)
      .map((file) => path.relative(SRC, file).split(path.sep).join('/'))
      .filter((file) => !file.startsWith('store/') && !TRANSACTIONS_ALLOWED.has(file))
      .filter((file) => /\bstore\.write\(|\.transaction\(\)|startTransaction\(|\bCommand</.test(readFileSync(path.join(SRC, file), 'utf8')));
    expect(offenders).toEqual([]);
  });
});
