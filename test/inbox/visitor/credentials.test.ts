import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SQLITE_FILE_NAME } from '../../../src/store/sqlite/open.ts';
import { hashToken } from '../../../src/tokens.ts';
import { createConversation, expectError, json, startApp, TEST_STORE, type Created, type TestApp } from '../../helpers.ts';
import { create, readConversation, reply } from '../support.ts';

const UPPER_TOKEN = '0123456789ABCDEF'.repeat(4);

// CONTRACT §2: the conversation token.
describe('conversation credentials', () => {
  let t: TestApp;
  let first: Created;
  let second: Created;

  beforeAll(async () => {
    t = await startApp({ env: { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', LIMIT_FOLLOWUP_SOURCE: '1000/1h' } });
    first = await createConversation(t, { message: 'first' });
    second = await createConversation(t, { message: 'second' });
  });
  afterAll(() => t.close());

  it('makes server tokens of 64 lowercase hex characters, different each time', () => {
    expect(first.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(second.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(first.access_token).not.toBe(second.access_token);
  });

  describe('hex tokens are case-insensitive', () => {
    let upper: Created;
    beforeAll(async () => {
      const response = await create(t, { message: 'uppercase client', client_access_token: UPPER_TOKEN });
      expect(response.statusCode).toBe(201);
      upper = json<Created>(response);
    });

    it.each([
      ['as created (uppercase)', UPPER_TOKEN],
      ['in lowercase', UPPER_TOKEN.toLowerCase()],
      ['in mixed case', UPPER_TOKEN.toLowerCase().slice(0, 32) + UPPER_TOKEN.slice(32)],
    ])('reads and replies with the token %s', async (_label, token) => {
      expect((await readConversation(t, upper.conversation_id, token)).statusCode).toBe(200);
      const replied = await reply(t, upper.conversation_id, token, { message: `with ${token.slice(0, 4)}` });
      expect(replied.statusCode, replied.body).toBe(201);
    });

    it('treats a retry with the lowercase form of the same token as the same conversation', async () => {
      const retry = await create(t, { message: 'uppercase client', client_access_token: UPPER_TOKEN.toLowerCase() });
      expect(retry.statusCode).toBe(200);
      expect(json<Created>(retry)).toMatchObject({ conversation_id: upper.conversation_id, duplicate: true });
    });
  });

  describe('a token for another conversation', () => {
    it('gets the same 404 as an unknown conversation, on read and on reply', async () => {
      const unknownId = '01936b2e-0000-7000-8000-000000000000';
      const foreign = await readConversation(t, first.conversation_id, second.access_token);
      const unknown = await readConversation(t, unknownId, second.access_token);
      const wrong = await readConversation(t, first.conversation_id, 'f'.repeat(64));
      const notHex = await readConversation(t, first.conversation_id, 'not-a-hex-token');
      for (const response of [foreign, unknown, wrong, notHex]) expectError(response, 404, 'conversation_not_found');
      expect(foreign.body).toBe(unknown.body);
      expect(wrong.body).toBe(unknown.body);

      const foreignReply = await reply(t, first.conversation_id, second.access_token, { message: 'intruder' });
      const unknownReply = await reply(t, unknownId, second.access_token, { message: 'intruder' });
      expectError(foreignReply, 404, 'conversation_not_found');
      expect(foreignReply.body).toBe(unknownReply.body);
      const read = json<{ messages: Array<{ body: string }> }>(await readConversation(t, first.conversation_id, first.access_token));
      expect(read.messages.map((message) => message.body)).not.toContain('intruder');
    });
  });

  describe('a token rotated by another instance', () => {
    it('is accepted at once for a write though this instance still keeps the old hash, and the old token is refused', async () => {
      const own = await createConversation(t, { message: 'rotated elsewhere' });
      // This instance reads the hash and keeps it.
      expect((await reply(t, own.conversation_id, own.access_token, { message: 'before' })).statusCode).toBe(201);
      // Another instance's rotation: committed to the shared store, its change not yet relayed here.
      const renewed = 'ab'.repeat(32);
      await t.store.db.updateTable('conversations').set({ token_hash: hashToken(renewed) }).where('id', '=', own.conversation_id).execute();
      expect((await reply(t, own.conversation_id, renewed, { message: 'after' })).statusCode).toBe(201);
      expectError(await reply(t, own.conversation_id, own.access_token, { message: 'old token' }), 404, 'conversation_not_found');
    });
  });

  describe('the Authorization header', () => {
    it.each([
      ['absent', undefined],
      ['empty', ''],
      ['Basic', 'Basic dXNlcjpwYXNz'],
      ['Token', `Token ${'a'.repeat(64)}`],
      ['the bare token', 'a'.repeat(64)],
      ['Bearer without a token', 'Bearer'],
      ['Bearer with only spaces', 'Bearer    '],
      ['Bearer with two words', 'Bearer abc def'],
    ])('answers 401 token_required when it is %s, on read and reply', async (_label, header) => {
      const headers = header === undefined ? {} : { authorization: header };
      const read = await t.inject({ method: 'GET', url: `/api/conversations/${first.conversation_id}`, headers });
      expectError(read, 401, 'token_required');
      const replied = await t.inject({ method: 'POST', url: `/api/conversations/${first.conversation_id}/messages`, headers, payload: { message: 'x' } });
      expectError(replied, 401, 'token_required');
    });

    it.each(['bearer', 'BEARER', 'BeArEr'])('accepts the scheme word written %s', async (scheme) => {
      const headers = { authorization: `${scheme} ${first.access_token}` };
      expect((await t.inject({ method: 'GET', url: `/api/conversations/${first.conversation_id}`, headers })).statusCode).toBe(200);
    });

    it('never echoes the token in an error body', async () => {
      const secret = 'e'.repeat(64);
      const responses = [
        await readConversation(t, first.conversation_id, secret),
        await reply(t, first.conversation_id, secret, { message: 'x' }),
        await t.inject({ method: 'GET', url: `/api/conversations/${first.conversation_id}`, headers: { authorization: `Token ${secret}` } }),
      ];
      for (const response of responses) expect(response.body).not.toContain(secret);
    });
  });

  describe('at rest', () => {
    it('stores only SHA-256 hashes of the tokens', async () => {
      const tokens = [first.access_token, second.access_token, UPPER_TOKEN];
      const rows = await t.store.db.selectFrom('conversations').select(['id', 'token_hash']).execute();
      const hashes = rows.map((row) => row.token_hash);
      for (const token of tokens) {
        expect(hashes).toContain(createHash('sha256').update(token.toLowerCase()).digest('hex'));
      }

      // Every text cell of every table, then (on SQLite) the raw database files: main file and write-ahead log.
      const tables =
        TEST_STORE === 'sqlite'
          ? await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(t.store.db)
          : await sql<{ name: string }>`select table_name as name from information_schema.tables where table_schema = current_schema()`.execute(t.store.db);
      expect(tables.rows.map((row) => row.name)).toContain('conversations');
      const dump: string[] = [];
      for (const { name } of tables.rows) {
        const content = await sql<Record<string, unknown>>`select * from ${sql.table(name)}`.execute(t.store.db);
        dump.push(JSON.stringify(content.rows));
      }
      const bytes: string[] = [];
      if (TEST_STORE === 'sqlite') {
        await sql`pragma wal_checkpoint(PASSIVE)`.execute(t.store.db);
        const file = path.join(t.config.dataDir, SQLITE_FILE_NAME);
        bytes.push(...[file, `${file}-wal`].filter((name) => existsSync(name)).map((name) => readFileSync(name).toString('latin1')));
        // The scan sees what is stored: the hashes are there in the files.
        expect(bytes.join('')).toContain(hashes[0]);
      }
      expect(dump.join('')).toContain(hashes[0]);
      const haystack = (dump.join('\n') + bytes.join('')).toLowerCase();
      for (const token of tokens) {
        expect(haystack).not.toContain(token.toLowerCase());
        expect(haystack).not.toContain(Buffer.from(token, 'hex').toString('latin1').toLowerCase());
      }
    });
  });
});
