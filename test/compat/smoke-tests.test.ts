import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { createThread, get, joinThread, LOBBY, post, register, type Agent } from './support.ts';

/* CONTRACT §10 §3.20 and §9: the smoke-test clean-up removes what the synthetic agents left and keeps every count exact. */

const MARKER = 'operator_authorized_live_smoke';
let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { FORUM_MODERATOR_NAME: 'The Moderator' } });
});
afterAll(async () => t?.close());

const remove = (options: Record<string, unknown> = {}) => t.inject({ method: 'DELETE', url: '/api/admin/peer-smoke-tests', headers: adminHeaders(), ...options });

type Summary = { topic_id: string; member_count: number; message_count: number; created_by: string };
const topic = async (id: string) => json<{ topic: Summary; messages: { message: string }[] }>(await get(t, `/api/admin/forum/topics/${id}`, adminHeaders()));

/** Every stored counter equals the rows it counts. */
async function expectCountersExact(): Promise<void> {
  const db = t.store.db;
  const topics = await db.selectFrom('forum_topics').select(['id', 'member_count', 'message_count', 'visibility', 'category']).execute();
  for (const row of topics) {
    const posts = await db.selectFrom('forum_messages').select((eb) => eb.fn.countAll<number>().as('n')).where('topic_id', '=', row.id).executeTakeFirstOrThrow();
    const members = await db.selectFrom('forum_members').select((eb) => eb.fn.countAll<number>().as('n')).where('topic_id', '=', row.id).where('status', '=', 'active').executeTakeFirstOrThrow();
    expect([row.id, Number(row.message_count), Number(row.member_count)]).toEqual([row.id, Number(posts.n), Number(members.n)]);
  }
  const categories = await db.selectFrom('forum_categories').select(['slug', 'topic_count']).execute();
  for (const category of categories) {
    const listed = topics.filter((row) => row.category === category.slug && row.visibility === 'listed').length;
    expect([category.slug, Number(category.topic_count)]).toEqual([category.slug, listed]);
  }
  const bridges = await db.selectFrom('owner_bridges').selectAll().execute();
  for (const bridge of bridges) {
    const messages = await db.selectFrom('owner_bridge_messages').select(['role', 'seen_at']).where('topic_id', '=', bridge.topic_id).where('agent_id', '=', bridge.agent_id).execute();
    expect(Number(bridge.message_count)).toBe(messages.length);
    expect(Number(bridge.unread_count)).toBe(messages.filter((message) => message.role === 'agent' && message.seen_at === null).length);
  }
}

describe('DELETE /api/admin/peer-smoke-tests', () => {
  it('removes only marked "Beacon Live Smoke " agents, their unlisted threads, and their posts, memberships and bridges anywhere', async () => {
    const smoke = await register(t, { display_name: 'Beacon Live Smoke 1', identity: { interaction_origin: MARKER } });
    const smokeToo = await register(t, { display_name: 'BEACON LIVE SMOKE two', identity: { capabilities: ['chat', `${MARKER} run`] } });
    const unmarked = await register(t, { display_name: 'Beacon Live Smoke 3', identity: { interaction_origin: 'manual' } });
    const noSpace = await register(t, { display_name: 'Beacon Live Smoker', identity: { interaction_origin: MARKER } });
    const alice: Agent = await register(t, { display_name: 'Alice' });

    // The smoke agent's own threads: an unlisted one (goes, with Alice's posts and bridge in it) and a listed one (stays).
    const unlisted = await createThread(t, smoke, { title: 'Smoke unlisted', visibility: 'unlisted' });
    const alicesInUnlisted = await joinThread(t, alice, unlisted.thread_id);
    expect((await post(t, `/api/peer-threads/${unlisted.thread_id}/messages`, bearer(alicesInUnlisted.thread_access_token), { message: 'in unlisted' })).statusCode).toBe(201);
    expect((await post(t, `/api/peer-threads/${unlisted.thread_id}/owner`, bearer(alicesInUnlisted.thread_access_token), { message: 'bridge in unlisted' })).statusCode).toBe(201);
    const listed = await createThread(t, smoke, { title: 'Smoke listed' });
    const alicesInListed = await joinThread(t, alice, listed.thread_id);
    expect((await post(t, `/api/peer-threads/${listed.thread_id}/messages`, bearer(listed.thread_access_token), { message: 'smoke in listed' })).statusCode).toBe(201);
    expect((await post(t, `/api/peer-threads/${listed.thread_id}/messages`, bearer(alicesInListed.thread_access_token), { message: 'alice in listed' })).statusCode).toBe(201);

    // Their traces elsewhere: the lobby and Alice's topic, with posts (one hidden), a left membership and owner bridges.
    const aliceTopic = await createThread(t, alice, { title: 'Alice topic' });
    for (const agent of [smoke, smokeToo, unmarked]) {
      const lobby = await joinThread(t, agent, LOBBY);
      expect((await post(t, `/api/peer-threads/${LOBBY}/messages`, bearer(lobby.thread_access_token), { message: `hello from ${agent.agent_id}` })).statusCode).toBe(201);
      const there = await joinThread(t, agent, aliceTopic.thread_id);
      const sent = json<{ message_id: string }>(await post(t, `/api/forum/topics/${aliceTopic.thread_id}/replies`, bearer(there.thread_access_token), { message: 'posted' }));
      expect((await post(t, `/api/forum/topics/${aliceTopic.thread_id}/owner`, bearer(there.thread_access_token), { message: 'to the operator' })).statusCode).toBe(201);
      if (agent === smokeToo) {
        expect((await post(t, `/api/admin/forum/messages/${sent.message_id}/hide`, adminHeaders(), { hidden: true })).statusCode).toBe(200);
        expect((await post(t, `/api/peer-threads/${aliceTopic.thread_id}/leave`, bearer(there.thread_access_token))).statusCode).toBe(200);
      }
    }
    expect((await post(t, `/api/admin/peer-owner-bridges/${aliceTopic.thread_id}/${smoke.agent_id}/messages`, adminHeaders(), { message: 'operator answer' })).statusCode).toBe(201);
    const [lobbyBefore, aliceBefore, listedBefore] = [await topic(LOBBY), await topic(aliceTopic.thread_id), await topic(listed.thread_id)];
    const categoriesBefore = json(await get(t, '/api/forum/categories'));
    await expectCountersExact();

    const response = await remove();
    expect(response.statusCode, response.body).toBe(200);
    expect(json(response)).toEqual({ ok: true, removed_agents: 2, removed_threads: 1 });

    // The unlisted thread is gone for everyone, the operator included, with its bridge.
    expectError(await get(t, `/api/admin/forum/topics/${unlisted.thread_id}`, adminHeaders()), 404, 'topic_not_found');
    expectError(await get(t, `/api/peer-threads/${unlisted.thread_id}`, bearer(alicesInUnlisted.thread_access_token)), 404, 'topic_not_found');
    // The listed thread stays, without the smoke agent's post or membership, still credited to its name (not the moderator).
    const listedAfter = await topic(listed.thread_id);
    expect(listedAfter.topic).toMatchObject({ member_count: listedBefore.topic.member_count - 1, message_count: listedBefore.topic.message_count - 1, created_by: 'Beacon Live Smoke 1' });
    expect(listedAfter.messages.map((message) => message.message)).toEqual(['alice in listed']);
    // Elsewhere: exactly their posts and active memberships are gone.
    expect((await topic(LOBBY)).topic).toMatchObject({ message_count: lobbyBefore.topic.message_count - 2, member_count: lobbyBefore.topic.member_count - 2 });
    expect((await topic(aliceTopic.thread_id)).topic).toMatchObject({ message_count: aliceBefore.topic.message_count - 2, member_count: aliceBefore.topic.member_count - 1 });
    const bridges = json<{ bridges: { agent_id: string; topic_id: string }[] }>(await get(t, '/api/admin/peer-owner-bridges', adminHeaders())).bridges;
    expect(bridges.map((bridge) => bridge.agent_id)).toEqual([unmarked.agent_id]);
    expect(bridges.some((bridge) => bridge.topic_id === unlisted.thread_id)).toBe(false);
    expect(json(await get(t, '/api/forum/categories'))).toEqual(categoriesBefore);
    await expectCountersExact();

    // The removed agents' tokens name nobody; the others still work.
    expectError(await post(t, '/api/peer-threads', bearer(smoke.access_token), { title: 'x' }), 401, 'agent_token_required');
    expectError(await post(t, `/api/peer-threads/${listed.thread_id}/messages`, bearer(listed.thread_access_token), { message: 'x' }), 404, 'topic_not_found');
    for (const agent of [unmarked, noSpace, alice]) expect((await post(t, '/api/peer-threads', bearer(agent.access_token), { title: 'Still here' })).statusCode).toBe(201);

    // Nothing left to remove: 0 and 0, with no body, an empty body or {}.
    for (const options of [{}, { payload: {} }, { payload: '', headers: { ...adminHeaders(), 'content-type': 'application/json' } }]) {
      const again = await remove(options);
      expect(again.statusCode, again.body).toBe(200);
      expect(json(again)).toEqual({ ok: true, removed_agents: 0, removed_threads: 0 });
    }
  });
});
