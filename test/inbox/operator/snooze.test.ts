import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, json, type Created, type TestApp } from '../../helpers.ts';
import { admin, listAll, MISSING_ID, overview, reply, startRoomyApp } from '../support.ts';

const HOUR = 3_600_000;

// Issue #31 item 6: POST /api/admin/conversations/{id}/snooze, compared with the clock in the list (no timer).
describe('snooze', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startRoomyApp();
  });
  afterAll(() => t.close());

  const snooze = (id: string, until: string | null) => admin(t, 'POST', `/api/admin/conversations/${id}/snooze`, { until });
  const later = (ms: number) => new Date(t.clock.now() + ms).toISOString();
  const ids = async (query: Record<string, string | boolean> = {}) => (await listAll(t, query)).map((item) => item.id);
  const operatorRead = (id: string) => t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() });

  async function readAndSnooze(message: string, hours: number): Promise<Created> {
    const created = await createConversation(t, { message, name: 'Snoozed Visitor' });
    expect((await operatorRead(created.conversation_id)).statusCode).toBe(200);
    const until = later(hours * HOUR);
    const snoozed = await snooze(created.conversation_id, until);
    expect(snoozed.statusCode).toBe(200);
    expect(json(snoozed)).toEqual({ ok: true, snoozed_until: until });
    return created;
  }

  it('leaves every list but ?snoozed=true until the time, then comes back unread until the operator reads it', async () => {
    const awake = await createConversation(t, { message: 'Still here', name: 'Awake' });
    const created = await readAndSnooze('Call me back in an hour', 1);
    const id = created.conversation_id;
    expect(await ids()).not.toContain(id);
    expect(await ids({ status: 'open' })).not.toContain(id);
    expect(await ids({ q: 'call' })).not.toContain(id);
    expect(await ids({ snoozed: true })).toEqual([id]);
    expect(await ids()).toContain(awake.conversation_id);
    // The visitor sees nothing of it.
    expect((await t.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: bearer(created.access_token) })).body).not.toContain('snooze');

    // Cached list pages change with the time, though nothing was written.
    t.clock.advance(HOUR - 1);
    expect(await ids()).not.toContain(id);
    t.clock.advance(1);
    const back = (await listAll(t)).find((item) => item.id === id);
    expect(back?.snoozed_until).toBe(new Date(t.clock.now()).toISOString());
    expect(await ids({ snoozed: true })).toEqual([]);

    // Reading it ends the snooze: it is an ordinary read conversation again.
    expect(json<{ conversation: { snoozed_until: string | null } }>(await operatorRead(id)).conversation.snoozed_until).toBeNull();
    expect((await listAll(t)).find((item) => item.id === id)?.snoozed_until).toBeNull();
  });

  it('comes back unread as soon as the visitor writes', async () => {
    const created = await readAndSnooze('Next week then', 24 * 7);
    const before = await overview(t);
    const followUp = await reply(t, created.conversation_id, created.access_token, { message: 'Actually, one more thing' });
    expect(followUp.statusCode).toBe(201);
    const item = (await listAll(t)).find((row) => row.id === created.conversation_id);
    expect(item).toMatchObject({ snoozed_until: null, unread_count: 1, last_message_preview: 'Actually, one more thing' });
    expect((await overview(t)).totals.unread_threads).toBe(before.totals.unread_threads + 1);
  });

  it('brings a conversation back now with until null, and is safe to repeat', async () => {
    const created = await readAndSnooze('Tomorrow', 24);
    for (let attempt = 0; attempt < 2; attempt += 1) expect(json(await snooze(created.conversation_id, null))).toEqual({ ok: true, snoozed_until: null });
    expect(await ids()).toContain(created.conversation_id);
  });

  it('refuses a time not in the future or not a time (400), an unknown conversation (404), the visitor\'s token (401)', async () => {
    const created = await createConversation(t, { message: 'Refusals', name: 'Refused' });
    for (const until of [new Date(t.clock.now()).toISOString(), later(-HOUR), 'tomorrow', '']) {
      const refused = await snooze(created.conversation_id, until);
      expect(refused.statusCode, until).toBe(400);
      expect(json(refused), until).toMatchObject({ code: 'invalid_request', field: 'until' });
    }
    expect((await admin(t, 'POST', `/api/admin/conversations/${created.conversation_id}/snooze`, {})).statusCode).toBe(400);
    const missing = await snooze(MISSING_ID, later(HOUR));
    expect(missing.statusCode).toBe(404);
    expect(json<{ code: string }>(missing).code).toBe('conversation_not_found');
    const visitor = await t.inject({ method: 'POST', url: `/api/admin/conversations/${created.conversation_id}/snooze`, headers: bearer(created.access_token), payload: { until: later(HOUR) } });
    expect(visitor.statusCode).toBe(401);
    expect(await ids()).toContain(created.conversation_id);
  });
});
