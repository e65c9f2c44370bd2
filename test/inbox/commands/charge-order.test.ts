import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/clock.ts';
import { ApiError } from '../../../src/http/errors.ts';
import { followUp } from '../../../src/inbox/commands/append-message.ts';
import { createConversation, type NewConversation } from '../../../src/inbox/commands/create-conversation.ts';
import { Limiter } from '../../../src/limits/limiter.ts';
import type { Database } from '../../../src/store/schema.ts';
import { hashToken, newToken } from '../../../src/tokens.ts';
import { refuse, Refused } from '../../../src/writes/write.ts';
import { countRows, sharedAppWithFreshLimits } from '../../helpers.ts';

const app = sharedAppWithFreshLimits();

/** The transaction, with the SQL of every statement its commands send through it recorded in order. */
function recording(trx: Kysely<Database>, statements: string[]): Kysely<Database> {
  return new Proxy(trx, {
    get(target, property) {
      if (property === 'executeQuery') {
        return (query: { sql: string; statements?: { sql: string }[] }) => {
          // Statements sent together (executeTogether) travel as one query: each is recorded.
          for (const statement of query.statements ?? [query]) statements.push(statement.sql.trim().toLowerCase());
          return target.executeQuery(query as never);
        };
      }
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** Runs `run` in a transaction of its own; resolves with the statements it ran and what it came to. */
async function statementsOf(run: (trx: Kysely<Database>) => Promise<unknown>): Promise<{ statements: string[]; error?: unknown }> {
  const statements: string[] = [];
  try {
    await app().store.db.transaction().execute((trx) => run(recording(trx, statements)));
    return { statements };
  } catch (error) {
    return { statements, error };
  }
}

/** The limits of the app, with a first contact's per-source limit at `source` and one follow-up a source. */
const limiterWith = (source: number) =>
  new Limiter({ ...app().config.limits, CONVERSATION_SOURCE: [{ count: source, seconds: 3600 }], FOLLOWUP_SOURCE: [{ count: 1, seconds: 3600 }] }, new ManualClock());

const firstContact = (limits: Limiter): NewConversation => ({
  tokenHash: hashToken(newToken()),
  clientSuppliedToken: false,
  fingerprint: 'fingerprint',
  name: 'Ada',
  invitationId: null,
  message: 'Hello operator',
  source: 'source-a',
  sourceWide: 'source-a-wide',
  verifiedOrigin: null,
  proof: undefined,
  limiter: limits,
  now: Date.UTC(2026, 0, 1),
});

/** A conversation created through the command, in a transaction of its own. */
async function conversationOf(limits: Limiter): Promise<{ conversationId: string; now: number; tokenHash: string }> {
  const contact = firstContact(limits);
  const created = await app().store.db.transaction().execute((trx) => createConversation.run(trx, contact, refuse));
  return { conversationId: created.id, now: contact.now, tokenHash: contact.tokenHash };
}

const visitor = (source: string, tokenHash: string) => ({ role: 'visitor' as const, sources: { source, wide: `${source}-wide` }, tokenHash, verifiedOrigin: null });

const position = (statements: string[], start: string) => statements.findIndex((sql) => sql.startsWith(start));

describe('where the writes charge their limits', () => {
  it('creation charges its limits after its inserts, and a client past its limit is refused before any write', async () => {
    const limits = limiterWith(1);
    const accepted = await statementsOf((trx) => createConversation.run(trx, firstContact(limits), refuse));
    expect(accepted.error).toBeUndefined();
    const charge = position(accepted.statements, 'insert into "limit_counters"');
    expect(charge).toBeGreaterThan(position(accepted.statements, 'insert into "conversations"'));
    expect(charge).toBeGreaterThan(position(accepted.statements, 'insert into "messages"'));
    expect(position(accepted.statements, 'insert into "conversations"')).toBeGreaterThan(-1);

    const conversations = await countRows(app(), 'conversations');
    const refused = await statementsOf((trx) => createConversation.run(trx, firstContact(limits), refuse));
    expect(refused.error).toBeInstanceOf(ApiError);
    expect(refused.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(refused.statements).toHaveLength(1);
    expect(refused.statements[0]).toMatch(/^select .* from "limit_counters"/);
    expect(await countRows(app(), 'conversations')).toBe(conversations);
  });

  it('a follow-up charges its limit after its message, and a refused one leaves neither the message nor the slot', async () => {
    const limits = limiterWith(10);
    const { conversationId, now, tokenHash } = await conversationOf(limits);
    const message = { conversationId, sender: visitor('source-a', tokenHash), body: 'More', clientMessageId: null, cap: 200, limiter: limits, now };
    const accepted = await statementsOf((trx) => followUp.run(trx, message, refuse));
    expect(accepted.error).toBeUndefined();
    expect(position(accepted.statements, 'insert into "limit_counters"')).toBeGreaterThan(position(accepted.statements, 'insert into "messages"'));
    expect(position(accepted.statements, 'insert into "messages"')).toBeGreaterThan(-1);

    const messages = await countRows(app(), 'messages');
    const before = await app().store.db.selectFrom('conversations').select(['message_count', 'revision']).where('id', '=', conversationId).executeTakeFirstOrThrow();
    const refused = await statementsOf((trx) => followUp.run(trx, message, refuse));
    expect(refused.error).toMatchObject({ status: 429, code: 'rate_limited' });
    expect(await countRows(app(), 'messages')).toBe(messages);
    expect(await app().store.db.selectFrom('conversations').select(['message_count', 'revision']).where('id', '=', conversationId).executeTakeFirstOrThrow()).toEqual(before);
  });

  it('a message with no slot is refused as missing, closed or full, before its limit, and writes nothing', async () => {
    const limits = limiterWith(10);
    const { conversationId, now, tokenHash } = await conversationOf(limits);
    const message = (id: string, cap = 200) => ({ conversationId: id, sender: visitor('source-b', tokenHash), body: 'More', clientMessageId: null, cap, limiter: limits, now });
    const outcome = async (id: string, cap?: number) => {
      const run = await statementsOf((trx) => followUp.run(trx, message(id, cap), refuse));
      expect(run.error).toBeInstanceOf(Refused);
      return (run.error as Refused).reason;
    };
    // The source's one follow-up is spent: the slot still answers first, not the 429.
    await app().store.db.transaction().execute((trx) => followUp.run(trx, message(conversationId), refuse));
    const spent = await app().store.db.selectFrom('limit_counters').select(['bucket', 'count']).where('bucket', 'like', 'FOLLOWUP_SOURCE:%').execute();
    expect(spent.map((row) => row.count)).toEqual([1]);
    const messages = await countRows(app(), 'messages');
    expect(await outcome('01900000-0000-7000-8000-00000000abcd')).toBe('missing');
    expect(await outcome(conversationId, 2)).toBe('full');
    await app().store.db.updateTable('conversations').set({ status: 'closed' }).where('id', '=', conversationId).execute();
    expect(await outcome(conversationId)).toBe('closed');
    expect(await countRows(app(), 'messages')).toBe(messages);
    expect(await app().store.db.selectFrom('limit_counters').select(['bucket', 'count']).where('bucket', 'like', 'FOLLOWUP_SOURCE:%').execute()).toEqual(spent);
  });
});
