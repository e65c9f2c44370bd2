import { beforeEach, describe, expect, it } from 'vitest';
import { countRows, expectError, hexToken, json, ownApps, recordingAlerts, sharedAppWithEmptyTables, type Created, type TestApp, type TestAppOptions } from '../../helpers.ts';
import { scrape, valueOf } from '../../metrics/exposition.ts';
import { create, readConversation, setStatus } from '../support.ts';

interface Receipt extends Created {
  auth_header: string;
  note: string;
}

// CONTRACT §3.1: POST /api/conversations.
describe('conversation creation', () => {
  let t: TestApp;
  let alerts: ReturnType<typeof recordingAlerts>;
  // The tests with another limit start an app of their own, closed after each.
  const startOwnApp = ownApps();
  const start = async (options: TestAppOptions = {}) => {
    alerts = recordingAlerts();
    t = await startOwnApp({ ...options, alerts });
  };

  describe('with the default limits', () => {
    // One app, its tables emptied and its alerts forgotten before each test.
    const sharedAlerts = recordingAlerts();
    const shared = sharedAppWithEmptyTables({ alerts: sharedAlerts });
    beforeEach(async () => {
      t = shared();
      alerts = sharedAlerts;
      await alerts.idle();
      alerts.sent.length = 0;
    });

    it('answers 201 with every receipt field', async () => {
      const response = await create(t, { message: 'Hello operator', name: 'Ada', invitation_id: 'inv-7' });
      expect(response.statusCode).toBe(201);
      const receipt = json<Receipt>(response);
      expect(Object.keys(receipt).sort()).toEqual(
        ['access_token', 'auth_header', 'conversation_id', 'duplicate', 'note', 'read_url', 'reply_url', 'status', 'typical_first_reply_seconds'].sort(),
      );
      expect(receipt.status).toBe('open');
      expect(receipt.duplicate).toBe(false);
      expect(receipt.read_url).toBe(`http://localhost:80/api/conversations/${receipt.conversation_id}`);
      expect(receipt.reply_url).toBe(`${receipt.read_url}/messages`);
      // COMPAT §4: a template, so the receipt holds the secret once and masking access_token masks it.
      expect(receipt.auth_header).toBe('Authorization: Bearer <access_token>');
      expect(response.body.split(receipt.access_token)).toHaveLength(2);
      expect(receipt.note).toMatch(/private/i);
      expect(receipt.note).toMatch(/cannot be recovered/);
      expect(receipt.note).not.toContain(receipt.access_token);
      await alerts.idle();
      expect(alerts.sent).toEqual(['new']);
    });

    it('tells a client-made token from a server-made one in the note, and holds the token once on a retry too', async () => {
      const token = hexToken('7c');
      const body = { message: 'Hello with my own token', client_access_token: token };
      for (const [status, response] of [[201, await create(t, body)], [200, await create(t, body)]] as const) {
        expect(response.statusCode).toBe(status);
        const receipt = json<Receipt>(response);
        expect(receipt.access_token).toBe(token);
        expect(receipt.auth_header).toBe('Authorization: Bearer <access_token>');
        expect(response.body.split(token)).toHaveLength(2);
        // True for a token the client made: it is the one sent, and a retry returns it; "cannot be recovered" would not be.
        expect(receipt.note).toMatch(/client_access_token you sent/);
        expect(receipt.note).not.toMatch(/cannot be recovered/);
        expect(receipt.note).toMatch(/private/i);
      }
      const serverMade = json<Receipt>(await create(t, { message: 'Hello without a token' }));
      expect(serverMade.note).toMatch(/server made it.*cannot be recovered/);
    });

    it('stores a blank or absent name as "Anonymous" and a blank invitation id as null', async () => {
      for (const payload of [{ message: 'a' }, { message: 'b', name: '   ', invitation_id: '  ' }, { message: 'c', name: '', invitation_id: '' }]) {
        const receipt = json<Created>(await create(t, payload));
        const read = json<{ name: string; invitation_id: string | null }>(await readConversation(t, receipt.conversation_id, receipt.access_token));
        expect(read.name).toBe('Anonymous');
        expect(read.invitation_id).toBeNull();
      }
    });

    it('answers a retry with the same client token and body with 200 duplicate, the current status, and no second alert', async () => {
      const token = hexToken('5a');
      const body = { message: 'Hello once', name: 'Ada', invitation_id: 'inv-1', client_access_token: token };
      const first = await create(t, body);
      expect(first.statusCode).toBe(201);
      const created = json<Receipt>(first);
      expect(created.access_token).toBe(token);

      const retry = await create(t, body);
      expect(retry.statusCode).toBe(200);
      expect(json<Receipt>(retry)).toEqual({ ...created, duplicate: true });

      await setStatus(t, created.conversation_id, 'closed');
      const later = json<Receipt>(await create(t, body));
      expect(later).toMatchObject({ conversation_id: created.conversation_id, duplicate: true, status: 'closed' });

      await alerts.idle();
      expect(alerts.sent).toEqual(['new']);
      expect(await countRows(t, 'conversations')).toBe(1);
      expect(await countRows(t, 'messages')).toBe(1);
    });

    it('compares the normalised request: trimming and a blank name make no difference', async () => {
      const token = hexToken('6b');
      expect((await create(t, { message: 'same', client_access_token: token })).statusCode).toBe(201);
      const variants = [
        { message: '  same  ', client_access_token: token },
        { message: 'same', name: '   ', invitation_id: '', client_access_token: token },
        { message: 'same', name: 'Anonymous', client_access_token: token },
      ];
      for (const variant of variants) {
        const response = await create(t, variant);
        expect(response.statusCode, JSON.stringify(variant)).toBe(200);
      }
    });

    it.each([
      ['another message', { message: 'different' }],
      ['another name', { message: 'original', name: 'Bob' }],
      ['an invitation id', { message: 'original', invitation_id: 'inv-9' }],
    ])('answers 409 client_token_conflict for the same client token with %s', async (_label, changed) => {
      const token = hexToken('7c');
      expect((await create(t, { message: 'original', client_access_token: token })).statusCode).toBe(201);
      expectError(await create(t, { ...changed, client_access_token: token }), 409, 'client_token_conflict');
      expect(await countRows(t, 'conversations')).toBe(1);
    });

    it('answers 20 concurrent identical requests with one 201 and nineteen 200s, and stores one conversation', async () => {
      const body = { message: 'racing', client_access_token: hexToken('8d') };
      const responses = await Promise.all(Array.from({ length: 20 }, () => create(t, body)));
      const statuses = responses.map((response) => response.statusCode);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 200)).toHaveLength(19);
      expect(new Set(responses.map((response) => json<Created>(response).conversation_id)).size).toBe(1);
      expect(await countRows(t, 'conversations')).toBe(1);
      expect(await countRows(t, 'messages')).toBe(1);
      await alerts.idle();
      expect(alerts.sent).toEqual(['new']);
    });
  });

  describe('with a low per-source limit', () => {
    beforeEach(() => start({ env: { LIMIT_CONVERSATION_SOURCE: '2/1h' } }));

    it('charges no limit for retries: many retries past the limit stay 200 and leave the second slot free', async () => {
      const body = { message: 'retried', client_access_token: hexToken('9e') };
      expect((await create(t, body)).statusCode).toBe(201);
      for (let attempt = 0; attempt < 10; attempt++) {
        const retry = await create(t, body);
        expect(retry.statusCode, `retry ${attempt}`).toBe(200);
      }
      expect((await create(t, { message: 'second conversation' })).statusCode).toBe(201);
      expectError(await create(t, { message: 'third conversation' }), 429, 'rate_limited');
      // A retry stays possible while the source is limited, and is no refusal in the metrics.
      expect((await create(t, body)).statusCode).toBe(200);
      expect(valueOf((await scrape(t)).samples, 'parley_rate_limit_refusals_total', { limit: 'CONVERSATION_SOURCE' })).toBe(1);
    });
  });

  describe('against a real listening server', () => {
    let base: string;
    beforeEach(async () => {
      await start({ env: { LIMIT_CONVERSATION_SOURCE: '1/1h' } });
      base = await t.app.listen({ host: '127.0.0.1', port: 0 });
    });

    const post = (body: unknown) =>
      fetch(`${base}/api/conversations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });

    it('answers 20 concurrent identical requests with one 201 and nineteen 200s, even with a limit of one', async () => {
      const body = { message: 'racing over sockets', client_access_token: hexToken('af') };
      const responses = await Promise.all(Array.from({ length: 20 }, () => post(body)));
      const bodies = await Promise.all(responses.map((response) => response.json() as Promise<Created>));
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([...Array(19).fill(200), 201]);
      expect(new Set(bodies.map((receipt) => receipt.conversation_id)).size).toBe(1);
      expect(await countRows(t, 'conversations')).toBe(1);
      await alerts.idle();
      expect(alerts.sent).toEqual(['new']);
    });

    it('answers concurrent requests with one client token and different bodies with one 201 and 409s', async () => {
      const token = hexToken('b0');
      const responses = await Promise.all(Array.from({ length: 10 }, (_, index) => post({ message: `body ${index}`, client_access_token: token })));
      const statuses = responses.map((response) => response.status);
      expect(statuses.filter((status) => status === 201)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(9);
      expect(await countRows(t, 'conversations')).toBe(1);
    });
  });
});
