import { afterEach, describe, expect, it } from 'vitest';
import { createConversation, expectError, json, recordingAlerts, startApp, UUID_V7, type Created, type TestApp, type TestAppOptions } from '../../helpers.ts';
import { scrape, valueOf } from '../../metrics/exposition.ts';
import { insertOperatorMessage, readConversation, reply, setStatus } from '../support.ts';

interface ReplyReceipt {
  ok: true;
  conversation_id: string;
  message_id: string;
  duplicate: boolean;
}

const storedMessages = async (t: TestApp, conversationId: string) =>
  t.store.db.selectFrom('messages').select(['id', 'body']).where('conversation_id', '=', conversationId).orderBy('id').execute();

const conversationRow = async (t: TestApp, conversationId: string) =>
  t.store.db.selectFrom('conversations').selectAll().where('id', '=', conversationId).executeTakeFirstOrThrow();

// CONTRACT §3.3: POST /api/conversations/{id}/messages with the conversation token.
describe('visitor follow-up', () => {
  let t: TestApp;
  let created: Created;
  let alerts: ReturnType<typeof recordingAlerts>;
  const start = async (options: TestAppOptions = {}) => {
    alerts = recordingAlerts();
    t = await startApp({ ...options, alerts });
    created = await createConversation(t, { message: 'first' });
  };
  const post = (payload: Record<string, unknown>, remoteAddress?: string) =>
    reply(t, created.conversation_id, created.access_token, payload, remoteAddress ? { remoteAddress } : {});
  afterEach(() => t.close());

  it('answers 201 {ok, conversation_id, message_id, duplicate:false}, bumps updated_at and alerts', async () => {
    await start();
    t.clock.advance(60_000);
    const response = await post({ message: 'a follow-up', client_message_id: 'follow-up-1' });
    expect(response.statusCode).toBe(201);
    const receipt = json<ReplyReceipt>(response);
    expect(Object.keys(receipt).sort()).toEqual(['conversation_id', 'duplicate', 'message_id', 'ok']);
    expect(receipt).toMatchObject({ ok: true, conversation_id: created.conversation_id, duplicate: false });
    expect(receipt.message_id).toMatch(UUID_V7);
    const read = json<{ updated_at: string; messages: Array<{ id: string; body: string }> }>(
      await readConversation(t, created.conversation_id, created.access_token),
    );
    expect(read.updated_at).toBe(new Date(t.clock.now()).toISOString());
    expect(read.messages.at(-1)).toMatchObject({ id: receipt.message_id, body: 'a follow-up' });
    await alerts.idle();
    expect(alerts.sent).toEqual(['new', 'reply']);
  });

  it('answers a retry with the same client_message_id and body with 200 duplicate, storing nothing twice', async () => {
    await start();
    const body = { message: 'only once', client_message_id: 'retry-safe-1' };
    const first = json<ReplyReceipt>(await post(body));
    for (let attempt = 0; attempt < 3; attempt++) {
      const retry = await post({ ...body, message: '  only once ' });
      expect(retry.statusCode).toBe(200);
      expect(json<ReplyReceipt>(retry)).toEqual({ ...first, duplicate: true });
    }
    expect(await storedMessages(t, created.conversation_id)).toHaveLength(2);
    expect((await conversationRow(t, created.conversation_id)).message_count).toBe(2);
    await alerts.idle();
    expect(alerts.sent).toEqual(['new', 'reply']);
  });

  it('answers the duplicate even after the conversation was closed or marked spam', async () => {
    await start();
    const body = { message: 'before closing', client_message_id: 'before-close' };
    const first = json<ReplyReceipt>(await post(body));
    for (const status of ['closed', 'spam'] as const) {
      await setStatus(t, created.conversation_id, status);
      const retry = await post(body);
      expect(retry.statusCode, retry.body).toBe(200);
      expect(json<ReplyReceipt>(retry)).toEqual({ ...first, duplicate: true });
    }
  });

  it('answers 409 client_message_id_conflict for the same id with another body', async () => {
    await start();
    expect((await post({ message: 'original', client_message_id: 'conflict-1' })).statusCode).toBe(201);
    expectError(await post({ message: 'changed', client_message_id: 'conflict-1' }), 409, 'client_message_id_conflict');
    expect((await storedMessages(t, created.conversation_id)).map((message) => message.body)).toEqual(['first', 'original']);
  });

  it("keeps the visitor's client_message_id space apart from the operator's", async () => {
    await start();
    await t.store.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('messages')
        .values({ id: '01936b2e-0000-7000-8000-0000000000aa', conversation_id: created.conversation_id, role: 'admin', body: 'op', client_message_id: 'shared-id-1', created_at: t.clock.now(), seen_at: null })
        .execute();
    });
    expect((await post({ message: 'visitor text', client_message_id: 'shared-id-1' })).statusCode).toBe(201);
  });

  it.each(['closed', 'spam'] as const)('answers 409 conversation_closed when the conversation is %s, storing nothing', async (status) => {
    await start();
    await setStatus(t, created.conversation_id, status);
    const before = await conversationRow(t, created.conversation_id);
    expectError(await post({ message: 'too late', client_message_id: 'too-late-1' }), 409, 'conversation_closed');
    expectError(await post({ message: 'too late again' }), 409, 'conversation_closed');
    expect(await storedMessages(t, created.conversation_id)).toHaveLength(1);
    expect(await conversationRow(t, created.conversation_id)).toEqual(before);
  });

  it('answers 409 conversation_full at the cap, counting every role and the first message', async () => {
    await start({ env: { CONVERSATION_MAX_MESSAGES: '4' } });
    expect((await post({ message: 'two' })).statusCode).toBe(201);
    await insertOperatorMessage(t, created.conversation_id, 'three (operator)');
    expect((await post({ message: 'four' })).statusCode).toBe(201);
    expectError(await post({ message: 'five' }), 409, 'conversation_full');
    expect(await storedMessages(t, created.conversation_id)).toHaveLength(4);
  });

  it('holds the cap exactly under concurrency: 50 parallel replies to 190 messages leave 200', async () => {
    await start({ env: { CONVERSATION_MAX_MESSAGES: '200', LIMIT_FOLLOWUP_SOURCE: '1000/1h,5000/1d' } });
    for (let index = 2; index <= 190; index++) {
      const response = await post({ message: `fill ${index}` });
      if (response.statusCode !== 201) throw new Error(`fill ${index}: ${response.body}`);
    }
    expect(await storedMessages(t, created.conversation_id)).toHaveLength(190);

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => post({ message: `parallel ${index}`, client_message_id: `parallel-${String(index).padStart(3, '0')}` })),
    );
    const statuses = responses.map((response) => response.statusCode);
    expect(statuses.filter((status) => status === 201)).toHaveLength(10);
    expect(statuses.filter((status) => status === 409)).toHaveLength(40);
    for (const response of responses.filter((item) => item.statusCode === 409)) expect(json(response).code).toBe('conversation_full');
    expect(await storedMessages(t, created.conversation_id)).toHaveLength(200);
    expect((await conversationRow(t, created.conversation_id)).message_count).toBe(200);

    const read = json<{ messages: unknown[] }>(await readConversation(t, created.conversation_id, created.access_token));
    expect(read.messages).toHaveLength(200);
  });

  describe('per-source follow-up limit', () => {
    it('answers 429 rate_limited with Retry-After, stores nothing, and lets the window pass', async () => {
      await start({ env: { LIMIT_FOLLOWUP_SOURCE: '3/1h' } });
      for (let index = 0; index < 3; index++) expect((await post({ message: `ok ${index}` })).statusCode).toBe(201);
      const before = await conversationRow(t, created.conversation_id);
      const refused = await post({ message: 'over the limit', client_message_id: 'over-limit-1' });
      expectError(refused, 429, 'rate_limited');
      expect(Number(refused.headers['retry-after'])).toBe(3600);
      expect(await conversationRow(t, created.conversation_id)).toEqual(before);
      expect(await storedMessages(t, created.conversation_id)).toHaveLength(4);

      // Reads stay available while replies are limited.
      expect((await readConversation(t, created.conversation_id, created.access_token)).statusCode).toBe(200);

      t.clock.advance(30 * 60_000);
      const later = await post({ message: 'still over' });
      expect(Number(later.headers['retry-after'])).toBe(1800);
      t.clock.advance(30 * 60_000);
      const after = await post({ message: 'over the limit', client_message_id: 'over-limit-1' });
      expect(after.statusCode).toBe(201);
    });

    it('charges nothing for a request it refuses, nor for a closed, full or invalid one', async () => {
      await start({ env: { LIMIT_FOLLOWUP_SOURCE: '2/1h', CONVERSATION_MAX_MESSAGES: '200' } });
      await setStatus(t, created.conversation_id, 'closed');
      for (let index = 0; index < 5; index++) expectError(await post({ message: `closed ${index}` }), 409, 'conversation_closed');
      await setStatus(t, created.conversation_id, 'open');
      for (let index = 0; index < 5; index++) expect((await post({ message: '' })).statusCode).toBe(400);

      expect((await post({ message: 'one' })).statusCode).toBe(201);
      expect((await post({ message: 'two' })).statusCode).toBe(201);
      for (let index = 0; index < 5; index++) expectError(await post({ message: `refused ${index}` }), 429, 'rate_limited');
      const counters = await t.store.db.selectFrom('limit_counters').select(['bucket', 'count']).where('bucket', 'like', 'FOLLOWUP_SOURCE:%').execute();
      // The window's count, spread over its shards (src/limits/shards.ts).
      expect(counters.reduce((sum, counter) => sum + counter.count, 0)).toBe(2);
    });

    it('counts per source: another address still replies', async () => {
      await start({ env: { LIMIT_FOLLOWUP_SOURCE: '1/1h' } });
      expect((await post({ message: 'a' }, '203.0.113.1')).statusCode).toBe(201);
      expectError(await post({ message: 'b' }, '203.0.113.1'), 429, 'rate_limited');
      expect((await post({ message: 'c' }, '203.0.113.2')).statusCode).toBe(201);
    });

    it('does not charge a duplicate retry, nor count it as a refusal once the limit is full', async () => {
      await start({ env: { LIMIT_FOLLOWUP_SOURCE: '2/1h' } });
      const body = { message: 'retried', client_message_id: 'retried-01' };
      expect((await post(body)).statusCode).toBe(201);
      for (let index = 0; index < 5; index++) expect((await post(body)).statusCode).toBe(200);
      expect((await post({ message: 'second' })).statusCode).toBe(201);
      // The limit is full now; a retry still is the earlier message, which no refusal counts.
      for (let index = 0; index < 3; index++) expect((await post(body)).statusCode).toBe(200);
      expect(valueOf((await scrape(t)).samples, 'parley_rate_limit_refusals_total', { limit: 'FOLLOWUP_SOURCE' })).toBe(0);
      expectError(await post({ message: 'third' }), 429, 'rate_limited');
      expect(valueOf((await scrape(t)).samples, 'parley_rate_limit_refusals_total', { limit: 'FOLLOWUP_SOURCE' })).toBe(1);
    });
  });

  it('charges the follow-up limit nothing for a reply refused as full', async () => {
    await start({ env: { LIMIT_FOLLOWUP_SOURCE: '2/1h', CONVERSATION_MAX_MESSAGES: '1' } });
    for (let index = 0; index < 4; index++) expectError(await post({ message: `full ${index}` }), 409, 'conversation_full');
    const counters = await t.store.db.selectFrom('limit_counters').selectAll().where('bucket', 'like', 'FOLLOWUP_SOURCE:%').execute();
    expect(counters).toEqual([]);
  });
});
