import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { beforeEach, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../../src/store/sqlite/open.ts';
import { adminHeaders, createConversation, ISO_MILLIS, json, sharedAppWithEmptyTables, TEST_STORE, type Created, type TestApp } from '../../helpers.ts';
import { insertOperatorMessage, markVisitorMessagesSeenByOperator, readConversation, reply, setStatus, type Message } from '../support.ts';

const execFileAsync = promisify(execFile);

interface Read {
  conversation_id: string;
  name: string;
  invitation_id: string | null;
  status: string;
  created_at: string;
  updated_at: string;
  messages: Message[];
}

// CONTRACT §3.2: GET /api/conversations/{id} with the conversation token.
describe('visitor read', () => {
  let t: TestApp;
  let created: Created;
  const read = async (headers: Record<string, string> = {}) => readConversation(t, created.conversation_id, created.access_token, headers);

  // One app, its tables emptied before each test.
  const shared = sharedAppWithEmptyTables();
  beforeEach(async () => {
    t = shared();
    created = await createConversation(t, { message: 'first', name: 'Ada', invitation_id: 'inv-3' });
  });

  it('answers exactly the visitor fields, and never operator-private ones', async () => {
    const response = await read();
    expect(response.statusCode).toBe(200);
    const body = json<Read>(response);
    expect(Object.keys(body).sort()).toEqual(['conversation_id', 'created_at', 'invitation_id', 'messages', 'name', 'status', 'typical_first_reply_seconds', 'updated_at']);
    expect(body).toMatchObject({ conversation_id: created.conversation_id, name: 'Ada', invitation_id: 'inv-3', status: 'open' });
    expect(body.messages).toHaveLength(1);
    expect(Object.keys(body.messages[0]!).sort()).toEqual(['body', 'created_at', 'id', 'role', 'seen_at']);
    expect(body.messages[0]).toMatchObject({ role: 'visitor', body: 'first', seen_at: null });
    for (const hidden of ['review_label', 'operator_note', 'unread_count', 'message_count', 'token_hash', 'fingerprint', 'revision', 'unreviewed', 'client_message_id']) {
      expect(response.body).not.toContain(hidden);
    }
    const [row] = await t.store.db.selectFrom('conversations').select(['token_hash', 'fingerprint']).execute();
    expect(response.body).not.toContain(row!.token_hash);
    expect(response.body).not.toContain(row!.fingerprint);
  });

  it('lists every message oldest first, visitor and operator alike', async () => {
    const bodies = ['first'];
    for (let index = 1; index <= 6; index++) {
      t.clock.advance(1000);
      const body = `message ${index}`;
      if (index % 3 === 0) await insertOperatorMessage(t, created.conversation_id, body);
      else expect((await reply(t, created.conversation_id, created.access_token, { message: body })).statusCode).toBe(201);
      bodies.push(body);
    }
    const { messages, updated_at } = json<Read>(await read());
    expect(messages.map((message) => message.body)).toEqual(bodies);
    expect(messages.map((message) => message.role)).toEqual(['visitor', 'visitor', 'visitor', 'admin', 'visitor', 'visitor', 'admin']);
    const times = messages.map((message) => Date.parse(message.created_at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(updated_at).toBe(new Date(t.clock.now()).toISOString());
  });

  it('keeps seen_at null until read, then sets it: the visitor read marks operator messages seen', async () => {
    await insertOperatorMessage(t, created.conversation_id, 'operator says hi');
    const before = await t.store.db.selectFrom('messages').select('seen_at').where('role', '=', 'admin').executeTakeFirstOrThrow();
    expect(before.seen_at).toBeNull();

    t.clock.advance(5000);
    const readAt = new Date(t.clock.now()).toISOString();
    const first = json<Read>(await read());
    const operatorMessage = first.messages.find((message) => message.role === 'admin')!;
    expect(operatorMessage.seen_at).toBe(readAt);
    expect(operatorMessage.seen_at).toMatch(ISO_MILLIS);
    expect(first.messages.find((message) => message.role === 'visitor')!.seen_at).toBeNull();

    // The first read's time stays: a later read does not move it.
    t.clock.advance(5000);
    const second = json<Read>(await read());
    expect(second.messages.find((message) => message.role === 'admin')!.seen_at).toBe(readAt);
  });

  it("shows when the operator read the visitor's messages", async () => {
    t.clock.advance(7000);
    await markVisitorMessagesSeenByOperator(t, created.conversation_id);
    const body = json<Read>(await read());
    expect(body.messages[0]!.seen_at).toBe(new Date(t.clock.now()).toISOString());
  });

  it('answers 304 with no body to If-None-Match with the current ETag, and a new tag after a change', async () => {
    const first = await read();
    const etag = first.headers.etag as string;
    expect(etag).toMatch(/^(W\/)?"[^"]+"$/);

    const unchanged = await read({ 'if-none-match': etag });
    expect(unchanged.statusCode).toBe(304);
    expect(unchanged.body).toBe('');
    expect(unchanged.headers.etag).toBe(etag);
    expect((await read({ 'if-none-match': `"stale", ${etag}` })).statusCode).toBe(304);
    expect((await read({ 'if-none-match': `W/${etag}` })).statusCode).toBe(304);
    expect((await read({ 'if-none-match': '"stale"' })).statusCode).toBe(200);

    expect((await reply(t, created.conversation_id, created.access_token, { message: 'new message' })).statusCode).toBe(201);
    const afterVisitorMessage = await read({ 'if-none-match': etag });
    expect(afterVisitorMessage.statusCode).toBe(200);
    const secondTag = afterVisitorMessage.headers.etag as string;
    expect(secondTag).not.toBe(etag);
    expect(json<Read>(afterVisitorMessage).messages).toHaveLength(2);

    await insertOperatorMessage(t, created.conversation_id, 'operator reply');
    const afterOperatorMessage = await read({ 'if-none-match': secondTag });
    expect(afterOperatorMessage.statusCode).toBe(200);
    const thirdTag = afterOperatorMessage.headers.etag as string;
    expect(thirdTag).not.toBe(secondTag);
    // The tag answered with the read is the state after the read marked the operator message seen.
    expect((await read({ 'if-none-match': thirdTag })).statusCode).toBe(304);

    await markVisitorMessagesSeenByOperator(t, created.conversation_id);
    expect((await read({ 'if-none-match': thirdTag })).statusCode).toBe(200);
  });

  it('still reads a closed or spam conversation, with its status', async () => {
    for (const status of ['closed', 'spam'] as const) {
      await setStatus(t, created.conversation_id, status);
      const response = await read();
      expect(response.statusCode).toBe(200);
      expect(json<Read>(response).status).toBe(status);
    }
  });

  describe('with the operator routes', () => {
    const operator = (method: 'GET' | 'POST', suffix: string, payload?: Record<string, unknown>) =>
      t.inject({ method, url: `/api/admin/conversations/${created.conversation_id}${suffix}`, headers: adminHeaders(), ...(payload ? { payload } : {}) });

    it('shows the seen markers both ways and moves the ETag with each operator action', async () => {
      const tag0 = (await read()).headers.etag as string;

      t.clock.advance(1000);
      const operatorReadAt = new Date(t.clock.now()).toISOString();
      expect((await operator('GET', '')).statusCode).toBe(200);
      const afterOperatorRead = await read({ 'if-none-match': tag0 });
      expect(afterOperatorRead.statusCode).toBe(200);
      expect(json<Read>(afterOperatorRead).messages[0]!.seen_at).toBe(operatorReadAt);
      const tag1 = afterOperatorRead.headers.etag as string;

      t.clock.advance(1000);
      expect((await operator('POST', '/messages', { message: 'operator answer' })).statusCode).toBe(201);
      t.clock.advance(1000);
      const visitorReadAt = new Date(t.clock.now()).toISOString();
      const afterReply = await read({ 'if-none-match': tag1 });
      expect(afterReply.statusCode).toBe(200);
      expect(json<Read>(afterReply).messages.at(-1)).toMatchObject({ role: 'admin', body: 'operator answer', seen_at: visitorReadAt });
      const tag2 = afterReply.headers.etag as string;

      expect((await operator('POST', '/status', { status: 'closed' })).statusCode).toBe(200);
      const afterClose = await read({ 'if-none-match': tag2 });
      expect(afterClose.statusCode).toBe(200);
      expect(json<Read>(afterClose).status).toBe('closed');
      expect((await reply(t, created.conversation_id, created.access_token, { message: 'closed?' })).statusCode).toBe(409);

      // The private review changes nothing the visitor sees: the tag holds and nothing leaks.
      const tag3 = afterClose.headers.etag as string;
      expect((await operator('POST', '/review', { label: 'human_contact', note: 'a private note' })).statusCode).toBe(200);
      const afterReview = await read({ 'if-none-match': tag3 });
      expect(afterReview.statusCode).toBe(304);
      const full = await read();
      expect(full.body).not.toContain('human_contact');
      expect(full.body).not.toContain('a private note');
    });

    it('stops answering once the operator deleted the conversation', async () => {
      expect((await t.inject({ method: 'DELETE', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() })).statusCode).toBe(200);
      expect((await read()).statusCode).toBe(404);
      expect((await reply(t, created.conversation_id, created.access_token, { message: 'anyone?' })).statusCode).toBe(404);
    });
  });

  it('answers repeated reads identically, and every change a visitor can see appears on the next read', async () => {
    const first = await read();
    const again = await read();
    expect(again.body).toBe(first.body);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['content-type']).toMatch(/^application\/json/);

    await insertOperatorMessage(t, created.conversation_id, 'operator says hi');
    const withReply = json<Read>(await read());
    expect(withReply.messages.map((message) => message.body)).toEqual(['first', 'operator says hi']);
    expect(withReply.messages[1]!.seen_at).toMatch(ISO_MILLIS);

    await setStatus(t, created.conversation_id, 'closed');
    expect(json<Read>(await read()).status).toBe('closed');

    await markVisitorMessagesSeenByOperator(t, created.conversation_id);
    expect(json<Read>(await read()).messages[0]!.seen_at).toMatch(ISO_MILLIS);
  });

  it('sees a change committed by another process at once, though reads keep the conversation between changes', async () => {
    expect(json<Read>(await read()).status).toBe('open');
    expect(json<Read>(await read()).status).toBe('open');
    // Written past this process: another connection to the same SQLite file, or another PostgreSQL session.
    const id = created.conversation_id;
    if (TEST_STORE === 'sqlite') {
      // A process of its own: the store reads SQLite's data_version once per turn of the event loop,
      // and what another process commits reaches this one by I/O, in a later turn.
      const script = `const SQLite = require('better-sqlite3');
        const other = new SQLite(process.argv[1]);
        other.prepare("update conversations set status = 'spam', revision = revision + 1 where id = ?").run(process.argv[2]);
        other.close();`;
      await execFileAsync(process.execPath, ['-e', script, path.join(t.config.dataDir, SQLITE_FILE_NAME), id], { timeout: 10_000 });
    } else {
      const other = new pg.Client({ connectionString: t.config.databaseUrl });
      await other.connect();
      try {
        await other.query("update conversations set status = 'spam', revision = revision + 1 where id = $1", [id]);
      } finally {
        await other.end();
      }
    }
    expect(json<Read>(await read()).status).toBe('spam');
  });

  it('forgets a deleted conversation at once, for reads and for follow-ups', async () => {
    expect((await read()).statusCode).toBe(200);
    expect((await reply(t, created.conversation_id, created.access_token, { message: 'cached token' })).statusCode).toBe(201);
    const deleted = await t.inject({ method: 'DELETE', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() });
    expect(deleted.statusCode).toBe(200);
    expect((await read()).statusCode).toBe(404);
    // Before the body is looked at: a deleted conversation is as unknown as one that never was.
    const followUp = await t.inject({ method: 'POST', url: `/api/conversations/${created.conversation_id}/messages`, headers: { authorization: `Bearer ${created.access_token}` }, payload: { wrong: true } });
    expect(followUp.statusCode).toBe(404);
    expect(json(followUp).code).toBe('conversation_not_found');
  });
});
