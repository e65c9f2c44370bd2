import { beforeEach, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, bearer, createConversation, json, ownApps, type TestApp } from '../../helpers.ts';
import { admin, listPage, MISSING_ID, overview, sharedRoomyApp, startRoomyApp, type Message } from '../support.ts';

interface OperatorView {
  conversation: Record<string, unknown> & { unread_count: number; message_count: number; status: string };
  messages: Message[];
}

const url = (id: string, rest = '') => `/api/admin/conversations/${id}${rest}`;

describe('operator conversation routes', () => {
  // One app, its tables emptied before each test; the test that needs its own cap starts its own.
  const shared = sharedRoomyApp();
  const startOwnApp = ownApps(startRoomyApp);
  let t: TestApp;
  beforeEach(() => {
    t = shared();
  });

  function visitorRead(id: string, token: string, headers: Record<string, string> = {}) {
    return t.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: { ...bearer(token), ...headers } });
  }
  function visitorReply(id: string, token: string, payload: Record<string, unknown>) {
    return t.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(token), payload });
  }

  describe('read', () => {
    it('returns the operator view with every field, and never a hash', async () => {
      const created = await createConversation(t, { message: 'First', name: 'Agent Smith', invitation_id: 'inv-1' });
      const response = await admin(t, 'GET', url(created.conversation_id));
      expect(response.statusCode).toBe(200);
      const view = json<OperatorView>(response);
      expect(view.conversation).toEqual({
        id: created.conversation_id,
        name: 'Agent Smith',
        invitation_id: 'inv-1',
        status: 'open',
        review_label: 'unreviewed',
        operator_note: '',
        created_at: '2026-11-22T12:00:00.000Z',
        updated_at: '2026-11-22T12:00:00.000Z',
        last_message_at: '2026-11-22T12:00:00.000Z',
        message_count: 1,
        unread_count: 0,
        snoozed_until: null,
        verified_origin: null,
      });
      expect(view.messages).toEqual([
        { id: expect.any(String), role: 'visitor', body: 'First', body_html: '<p>First</p>', created_at: '2026-11-22T12:00:00.000Z', seen_at: '2026-11-22T12:00:00.000Z', verified_origin: null },
      ]);
      expect(response.body).not.toMatch(/token_hash|fingerprint|[0-9a-f]{64}/);
    });

    it('answers a read again from the same store state, and anew after any write: a note, a visitor message, a status', async () => {
      const created = await createConversation(t, { message: 'First' });
      const read = async () => json<OperatorView & { notes: Array<{ body: string }> }>(await admin(t, 'GET', url(created.conversation_id)));
      expect((await read()).messages).toHaveLength(1);
      expect(await read()).toEqual(await read());
      expect((await admin(t, 'POST', `${url(created.conversation_id)}/notes`, { note: 'Remember this' })).statusCode).toBe(201);
      expect((await read()).notes.map((note) => note.body)).toEqual(['Remember this']);
      expect((await visitorReply(created.conversation_id, created.access_token, { message: 'Second' })).statusCode).toBe(201);
      const afterReply = await read();
      expect(afterReply.messages.map((message) => [message.body, message.seen_at !== null])).toEqual([['First', true], ['Second', true]]);
      expect((await admin(t, 'POST', `${url(created.conversation_id)}/status`, { status: 'closed' })).statusCode).toBe(200);
      expect((await read()).conversation.status).toBe('closed');
    });

    it('marks visitor messages seen once, zeroes unread, and changes the visitor ETag', async () => {
      const created = await createConversation(t, { message: 'First' });
      t.clock.advance(1_000);
      await visitorReply(created.conversation_id, created.access_token, { message: 'Second' });
      const before = await visitorRead(created.conversation_id, created.access_token);
      const etag = before.headers.etag as string;
      expect(json<{ messages: Message[] }>(before).messages.map((message) => message.seen_at)).toEqual([null, null]);
      expect((await listPage(t)).conversations[0]!.unread_count).toBe(2);
      expect((await overview(t)).totals.unread_threads).toBe(1);

      t.clock.advance(5_000);
      const readAt = new Date(t.clock.now()).toISOString();
      const first = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(first.conversation.unread_count).toBe(0);
      expect(first.messages.map((message) => message.seen_at)).toEqual([readAt, readAt]);
      expect((await listPage(t)).conversations[0]!.unread_count).toBe(0);
      expect((await overview(t)).totals.unread_threads).toBe(0);

      // The visitor sees the markers, under a new ETag.
      const stale = await visitorRead(created.conversation_id, created.access_token, { 'if-none-match': etag });
      expect(stale.statusCode).toBe(200);
      expect(stale.headers.etag).not.toBe(etag);
      expect(json<{ messages: Message[] }>(stale).messages.map((message) => message.seen_at)).toEqual([readAt, readAt]);
      const etagAfter = stale.headers.etag as string;

      // A second operator read changes nothing: same markers, same ETag, counters untouched.
      t.clock.advance(5_000);
      const second = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(second.messages.map((message) => message.seen_at)).toEqual([readAt, readAt]);
      const unchanged = await visitorRead(created.conversation_id, created.access_token, { 'if-none-match': etagAfter });
      expect(unchanged.statusCode).toBe(304);
      expect((await overview(t)).totals.unread_threads).toBe(0);
    });

    it('counts a new visitor message as unread again after a read', async () => {
      const created = await createConversation(t);
      await admin(t, 'GET', url(created.conversation_id));
      await visitorReply(created.conversation_id, created.access_token, { message: 'More' });
      expect((await listPage(t)).conversations[0]!.unread_count).toBe(1);
      expect((await overview(t)).totals.unread_threads).toBe(1);
      const view = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(view.messages.every((message) => message.seen_at !== null)).toBe(true);
      expect((await overview(t)).totals.unread_threads).toBe(0);
    });

    it('leaves the unread counter exact when operator reads race', async () => {
      const created = await createConversation(t);
      const reads = await Promise.all(Array.from({ length: 8 }, () => admin(t, 'GET', url(created.conversation_id))));
      expect(reads.every((response) => response.statusCode === 200)).toBe(true);
      expect((await overview(t)).totals.unread_threads).toBe(0);
    });

    it('shows the operator messages seen by the visitor once the visitor reads', async () => {
      const created = await createConversation(t);
      await admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'Hello from the operator' });
      let view = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(view.messages[1]).toMatchObject({ role: 'admin', seen_at: null });
      t.clock.advance(2_000);
      await visitorRead(created.conversation_id, created.access_token);
      view = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(view.messages[1]).toMatchObject({ role: 'admin', seen_at: new Date(t.clock.now()).toISOString() });
    });

    it('answers 404 conversation_not_found for an unknown id or a non-UUID', async () => {
      for (const id of [MISSING_ID, 'not-a-uuid', '1234', `${MISSING_ID}0`]) {
        const response = await admin(t, 'GET', url(id));
        expect(response.statusCode, id).toBe(404);
        expect(json(response).code).toBe('conversation_not_found');
      }
    });

    it('accepts the id in uppercase', async () => {
      const created = await createConversation(t);
      const response = await admin(t, 'GET', url(created.conversation_id.toUpperCase()));
      expect(response.statusCode).toBe(200);
      expect(json<OperatorView>(response).conversation.id).toBe(created.conversation_id);
    });
  });

  describe('delete', () => {
    it('deletes the conversation for good: the token stops working and the counters drop', async () => {
      const kept = await createConversation(t, { message: 'Keep', invitation_id: 'shared' });
      const created = await createConversation(t, { message: 'Delete me', invitation_id: 'shared' });
      await visitorReply(created.conversation_id, created.access_token, { message: 'More' });
      const before = await overview(t);
      expect(before.totals).toMatchObject({ total_conversations: 2, unread_threads: 2, open: 2 });
      expect(before.invitation_ids).toEqual([{ id: 'shared', count: 2 }]);

      const response = await admin(t, 'DELETE', url(created.conversation_id));
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ ok: true, deleted: created.conversation_id });

      expect((await visitorRead(created.conversation_id, created.access_token)).statusCode).toBe(404);
      expect((await visitorReply(created.conversation_id, created.access_token, { message: 'x' })).statusCode).toBe(404);
      expect((await admin(t, 'GET', url(created.conversation_id))).statusCode).toBe(404);
      const again = await admin(t, 'DELETE', url(created.conversation_id));
      expect(again.statusCode).toBe(404);
      expect(json(again).code).toBe('conversation_not_found');

      const after = await overview(t);
      expect(after.totals).toMatchObject({ total_conversations: 1, unread_threads: 1, open: 1 });
      expect(after.labels.find((entry) => entry.label === 'unreviewed')!.count).toBe(1);
      expect(after.invitation_ids).toEqual([{ id: 'shared', count: 1 }]);
      const remaining = await t.store.db.selectFrom('messages').select('conversation_id').execute();
      expect(new Set(remaining.map((row) => row.conversation_id))).toEqual(new Set([kept.conversation_id]));

      await admin(t, 'DELETE', url(kept.conversation_id));
      expect((await overview(t)).invitation_ids).toEqual([]);
    });

    it('adjusts the counters once when deletes race', async () => {
      const created = await createConversation(t, { message: 'Race', invitation_id: 'race' });
      const responses = await Promise.all(Array.from({ length: 6 }, () => admin(t, 'DELETE', url(created.conversation_id))));
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 404, 404, 404, 404, 404]);
      const after = await overview(t);
      expect(after.totals).toMatchObject({ total_conversations: 0, unread_threads: 0, open: 0 });
      expect(after.invitation_ids).toEqual([]);
    });

    it('answers 404 for an unknown id or a non-UUID', async () => {
      expect((await admin(t, 'DELETE', url(MISSING_ID))).statusCode).toBe(404);
      expect((await admin(t, 'DELETE', url('zzz'))).statusCode).toBe(404);
    });
  });

  describe('operator reply', () => {
    it('stores a reply the visitor reads, idempotent by client_message_id', async () => {
      const created = await createConversation(t);
      const path = url(created.conversation_id, '/messages');
      const first = await admin(t, 'POST', path, { message: 'Operator here', client_message_id: 'op-reply-1' });
      expect(first.statusCode).toBe(201);
      const receipt = json(first);
      expect(receipt).toEqual({ ok: true, conversation_id: created.conversation_id, message_id: expect.any(String), duplicate: false });

      const retry = await admin(t, 'POST', path, { message: 'Operator here', client_message_id: 'op-reply-1' });
      expect(retry.statusCode).toBe(200);
      expect(json(retry)).toEqual({ ...receipt, duplicate: true });

      const conflict = await admin(t, 'POST', path, { message: 'Something else', client_message_id: 'op-reply-1' });
      expect(conflict.statusCode).toBe(409);
      expect(json(conflict).code).toBe('client_message_id_conflict');

      const visitor = json<{ messages: Message[] }>(await visitorRead(created.conversation_id, created.access_token));
      expect(visitor.messages.map((message) => [message.role, message.body])).toEqual([
        ['visitor', 'Hello operator'],
        ['admin', 'Operator here'],
      ]);
    });

    it('keeps operator and visitor client_message_ids in separate spaces', async () => {
      const created = await createConversation(t);
      const visitor = await visitorReply(created.conversation_id, created.access_token, { message: 'Visitor text', client_message_id: 'same-id-123' });
      expect(visitor.statusCode).toBe(201);
      const operator = await admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'Operator text', client_message_id: 'same-id-123' });
      expect(operator.statusCode).toBe(201);
    });

    it('stores one message when identical retries race', async () => {
      const created = await createConversation(t);
      const responses = await Promise.all(
        Array.from({ length: 6 }, () => admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'Once', client_message_id: 'race-reply' })),
      );
      expect(responses.map((response) => response.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 201]);
      expect(new Set(responses.map((response) => json(response).message_id)).size).toBe(1);
      const view = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(view.conversation.message_count).toBe(2);
      expect(view.messages).toHaveLength(2);
    });

    it('refuses closed and spam conversations until reopened, then replies', async () => {
      const created = await createConversation(t);
      for (const status of ['closed', 'spam']) {
        await admin(t, 'POST', url(created.conversation_id, '/status'), { status });
        const refused = await admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'Hi' });
        expect(refused.statusCode).toBe(409);
        expect(json(refused).code).toBe('conversation_closed');
        expect(json<{ error: string }>(refused).error).toMatch(/reopen it first/);
      }
      await admin(t, 'POST', url(created.conversation_id, '/status'), { status: 'open' });
      const replied = await admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'Hi' });
      expect(replied.statusCode).toBe(201);
    });

    it('answers 409 conversation_full at the cap, counting every role', async () => {
      t = await startOwnApp({ env: { CONVERSATION_MAX_MESSAGES: '3' } });
      const created = await createConversation(t);
      await visitorReply(created.conversation_id, created.access_token, { message: 'two' });
      expect((await admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'three' })).statusCode).toBe(201);
      const full = await admin(t, 'POST', url(created.conversation_id, '/messages'), { message: 'four' });
      expect(full.statusCode).toBe(409);
      expect(json(full).code).toBe('conversation_full');
    });

    it('answers 400 for a bad body and 404 for an unknown conversation', async () => {
      const created = await createConversation(t);
      const path = url(created.conversation_id, '/messages');
      const bad: [unknown, string | undefined][] = [
        [{}, 'message'],
        [{ message: '' }, 'message'],
        [{ message: '   ' }, 'message'],
        [{ message: 'x'.repeat(4001) }, 'message'],
        [{ message: 42 }, 'message'],
        [{ message: 'ok', client_message_id: 'short' }, 'client_message_id'],
        [{ message: 'ok', client_message_id: 'has space in it' }, 'client_message_id'],
        [[], undefined],
      ];
      for (const [payload, field] of bad) {
        const response = await t.inject({ method: 'POST', url: path, headers: adminHeadersJson(), payload: JSON.stringify(payload) });
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(json(response).code).toBe('invalid_request');
        if (field) expect(json(response).field).toBe(field);
      }
      const notJson = await t.inject({ method: 'POST', url: path, headers: adminHeadersJson(), payload: '{"message":' });
      expect(notJson.statusCode).toBe(400);
      expect(json(notJson).code).toBe('invalid_json');
      const unknown = await admin(t, 'POST', url(MISSING_ID, '/messages'), { message: 'Hi' });
      expect(unknown.statusCode).toBe(404);
      expect(json(unknown).code).toBe('conversation_not_found');
      expect((await admin(t, 'POST', url('nope', '/messages'), { message: 'Hi' })).statusCode).toBe(404);
      // 4000 characters outside the BMP are 4000 code points: accepted.
      expect((await admin(t, 'POST', path, { message: '😀'.repeat(4000) })).statusCode).toBe(201);
    });
  });

  describe('status', () => {
    it('allows any transition, moves the counters, and blocks visitor replies unless open', async () => {
      const created = await createConversation(t);
      const transitions = ['closed', 'spam', 'open', 'spam', 'closed', 'open', 'open'] as const;
      for (const status of transitions) {
        const response = await admin(t, 'POST', url(created.conversation_id, '/status'), { status });
        expect(response.statusCode).toBe(200);
        expect(json(response)).toEqual({ ok: true, status });
        const totals = (await overview(t)).totals;
        expect({ open: totals.open, closed: totals.closed, spam: totals.spam }).toEqual({
          open: status === 'open' ? 1 : 0,
          closed: status === 'closed' ? 1 : 0,
          spam: status === 'spam' ? 1 : 0,
        });
        const visitor = await visitorRead(created.conversation_id, created.access_token);
        expect(json(visitor).status).toBe(status);
        const replied = await visitorReply(created.conversation_id, created.access_token, { message: `while ${status}` });
        expect(replied.statusCode).toBe(status === 'open' ? 201 : 409);
      }
    });

    it('changes the visitor ETag when the status changes, and not when it stays', async () => {
      const created = await createConversation(t);
      const etag = (await visitorRead(created.conversation_id, created.access_token)).headers.etag as string;
      await admin(t, 'POST', url(created.conversation_id, '/status'), { status: 'open' });
      expect((await visitorRead(created.conversation_id, created.access_token, { 'if-none-match': etag })).statusCode).toBe(304);
      await admin(t, 'POST', url(created.conversation_id, '/status'), { status: 'closed' });
      expect((await visitorRead(created.conversation_id, created.access_token, { 'if-none-match': etag })).statusCode).toBe(200);
    });

    it('answers 400 for a bad status and 404 for an unknown conversation', async () => {
      const created = await createConversation(t);
      for (const payload of [{}, { status: 'archived' }, { status: 'OPEN' }, { status: 1 }]) {
        const response = await admin(t, 'POST', url(created.conversation_id, '/status'), payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(json(response)).toMatchObject({ code: 'invalid_request', field: 'status' });
      }
      const missing = await admin(t, 'POST', url(MISSING_ID, '/status'), { status: 'closed' });
      expect(missing.statusCode).toBe(404);
      expect(json(missing).code).toBe('conversation_not_found');
    });
  });

  describe('review', () => {
    it('saves label and note, moves the label counters, and never shows them to the visitor', async () => {
      const created = await createConversation(t);
      const response = await admin(t, 'POST', url(created.conversation_id, '/review'), {
        label: 'authorized_agent_test',
        note: '  Looked at it; seems like a scripted test.  ',
      });
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({ ok: true, review_label: 'authorized_agent_test', operator_note: 'Looked at it; seems like a scripted test.' });
      const view = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(view.conversation).toMatchObject({ review_label: 'authorized_agent_test', operator_note: 'Looked at it; seems like a scripted test.' });
      const labels = Object.fromEntries((await overview(t)).labels.map((entry) => [entry.label, entry.count]));
      expect(labels).toMatchObject({ unreviewed: 0, authorized_agent_test: 1 });

      const visitor = await visitorRead(created.conversation_id, created.access_token);
      expect(visitor.body).not.toMatch(/review_label|operator_note|authorized_agent_test|scripted test|unread/);

      const cleared = await admin(t, 'POST', url(created.conversation_id, '/review'), { label: 'other', note: '' });
      expect(json(cleared)).toEqual({ ok: true, review_label: 'other', operator_note: '' });
      const after = Object.fromEntries((await overview(t)).labels.map((entry) => [entry.label, entry.count]));
      expect(after).toMatchObject({ unreviewed: 0, authorized_agent_test: 0, other: 1 });
    });

    it('does not move the conversation in the list', async () => {
      const first = await createConversation(t, { message: 'First' });
      t.clock.advance(1_000);
      await createConversation(t, { message: 'Second' });
      t.clock.advance(1_000);
      await admin(t, 'POST', url(first.conversation_id, '/review'), { label: 'other', note: 'n' });
      expect((await listPage(t)).conversations.map((item) => item.id)[1]).toBe(first.conversation_id);
    });

    it('answers 400 for a bad label or note, and note_contains_secret for a credential', async () => {
      const created = await createConversation(t);
      const path = url(created.conversation_id, '/review');
      const invalid: [Record<string, unknown>, string][] = [
        [{ note: '' }, 'label'],
        [{ label: 'other' }, 'note'],
        [{ label: 'verified', note: '' }, 'label'],
        [{ label: 'other', note: 'x'.repeat(501) }, 'note'],
        [{ label: 'other', note: 7 }, 'note'],
        [{ label: 'other', note: 'nul \u0000 inside' }, 'note'],
      ];
      for (const [payload, field] of invalid) {
        const response = await admin(t, 'POST', path, payload);
        expect(response.statusCode, JSON.stringify(payload)).toBe(400);
        expect(json(response)).toMatchObject({ code: 'invalid_request', field });
      }
      expect((await admin(t, 'POST', path, { label: 'other', note: 'é'.repeat(500) })).statusCode).toBe(200);

      const secrets = [
        `token ${created.access_token}`,
        'abcdef0123456789abcdef0123456789',
        'they sent Authorization: Bearer sk-live-1234567890abcdef',
        'bearer eyJhbGciOiJIUzI1NiJ9.payload',
        `the admin token is ${ADMIN_TOKEN}`,
      ];
      for (const note of secrets) {
        const response = await admin(t, 'POST', path, { label: 'other', note });
        expect(response.statusCode, note).toBe(400);
        expect(json(response)).toMatchObject({ code: 'note_contains_secret', field: 'note' });
        expect(response.body).not.toContain(note);
      }
      // Ordinary notes that mention the words are fine.
      for (const note of ['Bearer auth was used correctly', 'hash deadbeef seen', 'Uses the bearer token as told']) {
        expect((await admin(t, 'POST', path, { label: 'other', note })).statusCode, note).toBe(200);
      }
      const view = json<OperatorView>(await admin(t, 'GET', url(created.conversation_id)));
      expect(view.conversation.operator_note).toBe('Uses the bearer token as told');
      expect((await admin(t, 'POST', url(MISSING_ID, '/review'), { label: 'other', note: '' })).statusCode).toBe(404);
    });

    it('lists the six labels in interface order', async () => {
      const response = await admin(t, 'GET', '/api/admin/review-labels');
      expect(response.statusCode).toBe(200);
      expect(json(response)).toEqual({
        labels: ['unreviewed', 'transport_test', 'authorized_agent_test', 'independent_contact_claim', 'human_contact', 'other'],
      });
    });
  });
});

function adminHeadersJson(): Record<string, string> {
  return { ...bearer(ADMIN_TOKEN), 'content-type': 'application/json' };
}
