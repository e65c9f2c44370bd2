import { beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, json, ownApps, sharedAppWithEmptyTables, type TestApp } from '../../helpers.ts';
import { createTopic, readTopic, register, reply, type TopicPageBody } from '../support.ts';

// The tests on the default configuration share one app, its tables emptied before each; the
// others start their own.
const shared = sharedAppWithEmptyTables();
const startOwnApp = ownApps();
let t: TestApp;
beforeEach(() => {
  t = shared();
});

const admin = (method: 'GET' | 'POST', url: string, payload?: Record<string, unknown>) =>
  t.inject({ method, url, headers: adminHeaders(), ...(payload === undefined ? {} : { payload }) });

describe('moderation (CONTRACT §6.6)', () => {
  it('needs the administrator token on every moderation route', async () => {
    const id = '0190aaaa-0000-7000-8000-000000000000';
    for (const [method, url] of [
      ['GET', '/api/admin/forum/topics'],
      ['GET', `/api/admin/forum/topics/${id}`],
      ['POST', '/api/admin/forum/announcements'],
      ['POST', `/api/admin/forum/topics/${id}/messages`],
      ['POST', `/api/admin/forum/topics/${id}/status`],
      ['POST', `/api/admin/forum/messages/${id}/hide`],
      ['GET', '/api/admin/forum/bridges'],
      ['GET', `/api/admin/forum/bridges/${id}/${id}`],
      ['POST', `/api/admin/forum/bridges/${id}/${id}/messages`],
    ] as const) {
      const response = await t.inject({ method, url, headers: bearer('wrong-token-wrong-token-wrong-token'), remoteAddress: `10.7.0.${url.length % 200}` });
      expect(response.statusCode, url).toBe(401);
      expect(json(response).code).toBe('admin_token_required');
    }
  });

  it('publishes announcements idempotently as moderator-only listed topics', async () => {
    t = await startOwnApp({ env: { FORUM_MODERATOR_NAME: 'The Keeper' } });
    const body = { title: 'Welcome', summary: 'Rules', message: 'Be kind', client_message_id: 'announce-1' };
    const created = await admin('POST', '/api/admin/forum/announcements', body);
    expect(created.statusCode).toBe(201);
    const receipt = json<{ ok: boolean; topic_id: string; public_url: string }>(created);
    expect(receipt.public_url).toMatch(new RegExp(`/api/forum/topics/${receipt.topic_id}$`));
    const again = await admin('POST', '/api/admin/forum/announcements', body);
    expect(again.statusCode).toBe(200);
    expect(json(again).topic_id).toBe(receipt.topic_id);
    expect((await admin('POST', '/api/admin/forum/announcements', { ...body, message: 'Changed' })).statusCode).toBe(409);
    const listing = json<{ topics: { topic_id: string; posting_mode: string; created_by: string }[] }>(
      await t.inject({ method: 'GET', url: '/api/forum/topics?category=announcements' }),
    );
    expect(listing.topics).toHaveLength(1);
    expect(listing.topics[0]).toMatchObject({ topic_id: receipt.topic_id, posting_mode: 'moderator_only', created_by: 'The Keeper' });
    const read = json<TopicPageBody>(await readTopic(t, receipt.topic_id));
    expect(read.messages[0]).toMatchObject({ message: 'Be kind', sender_role: 'moderator', sender_agent_id: null, sender_display_name: 'The Keeper' });
  });

  it('posts as moderator idempotently, opens and closes topics, and hides posts', async () => {
    const owner = await register(t, { display_name: 'Owner' });
    const topic = await createTopic(t, owner);
    const url = `/api/admin/forum/topics/${topic.topic_id}/messages`;
    const first = await admin('POST', url, { message: 'Moderator here', client_message_id: 'mod-00001' });
    expect(first.statusCode).toBe(201);
    expect((await admin('POST', url, { message: 'Moderator here', client_message_id: 'mod-00001' })).statusCode).toBe(200);
    // Moderator and agent client_message_id spaces are separate.
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'agent', 'mod-00001')).statusCode).toBe(201);
    expect((await admin('POST', '/api/admin/forum/topics/0190aaaa-0000-7000-8000-000000000000/messages', { message: 'x' })).statusCode).toBe(404);

    const status = (value: string) => admin('POST', `/api/admin/forum/topics/${topic.topic_id}/status`, { status: value });
    expect(json(await status('closed'))).toMatchObject({ ok: true, status: 'closed' });
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'closed now')).statusCode).toBe(409);
    expect((await admin('POST', url, { message: 'closed' })).statusCode).toBe(409);
    expect((await status('archived')).statusCode).toBe(400);
    expect(json(await status('open'))).toMatchObject({ status: 'open' });
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'reopened')).statusCode).toBe(201);

    const firstPostId = json<TopicPageBody>(await readTopic(t, topic.topic_id)).messages[0]!.message_id;
    const hide = (hidden: boolean) => admin('POST', `/api/admin/forum/messages/${firstPostId}/hide`, { hidden });
    expect(json(await hide(true))).toMatchObject({ ok: true, hidden: true });
    const publicView = json<TopicPageBody>(await readTopic(t, topic.topic_id)).messages[0]!;
    expect(publicView).toEqual({
      message_id: firstPostId,
      sender_agent_id: null,
      sender_display_name: '',
      sender_role: 'agent',
      message: '[removed by moderator]',
      created_at: expect.any(String),
    });
    const memberView = json<TopicPageBody>(await readTopic(t, topic.topic_id, bearer(topic.thread_access_token))).messages[0]!;
    expect(memberView.message).toBe('[removed by moderator]');
    const moderatorView = json<TopicPageBody>(await admin('GET', `/api/admin/forum/topics/${topic.topic_id}`)).messages[0]!;
    expect(moderatorView).toMatchObject({ message: 'First post', hidden: true, sender_agent_id: owner.agent_id });
    await hide(false);
    expect(json<TopicPageBody>(await readTopic(t, topic.topic_id)).messages[0]!.message).toBe('First post');
    expect((await admin('POST', '/api/admin/forum/messages/0190aaaa-0000-7000-8000-000000000000/hide', { hidden: true })).statusCode).toBe(404);
  });

  it('lists every topic with visibility and status filters, by keyset', async () => {
    const owner = await register(t);
    const hidden = await createTopic(t, owner, { visibility: 'unlisted' });
    t.clock.advance(1000);
    const shown = await createTopic(t, owner);
    const list = async (query: string) =>
      json<{ topics: { topic_id: string }[]; next_cursor: string | null }>(await admin('GET', `/api/admin/forum/topics${query}`));
    expect((await list('?visibility=unlisted')).topics.map((topic) => topic.topic_id)).toEqual([hidden.topic_id]);
    expect((await list('?visibility=listed&category=general')).topics.map((topic) => topic.topic_id)).toEqual([shown.topic_id]);
    const page = await list('?category=general&limit=1');
    expect(page.topics.map((topic) => topic.topic_id)).toEqual([shown.topic_id]);
    const next = await list(`?category=general&limit=1&cursor=${page.next_cursor}`);
    expect(next.topics.map((topic) => topic.topic_id)).toEqual([hidden.topic_id]);
    expect(next.next_cursor).toBeNull();
    expect((await list('?status=open')).topics).toHaveLength(3);
    expect((await admin('GET', '/api/admin/forum/topics?category=nope')).statusCode).toBe(400);
  });
});
