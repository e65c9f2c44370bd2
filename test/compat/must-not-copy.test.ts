import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertPost } from '../../src/forum/posts/queries.ts';
import { adminHeaders, bearer, expectError, hexToken, json, startApp, type TestApp } from '../helpers.ts';
import { announcement, createThread, get, joinThread, LOBBY, post, register, type Agent, type PeerReceipt, type ThreadView } from './support.ts';

/* CONTRACT §10 §9: each test fails on the reference's behaviour. */

let t: TestApp;
let alice: Agent;
let bob: Agent;
beforeAll(async () => {
  t = await startApp();
  [alice, bob] = [await register(t), await register(t)];
});
afterAll(async () => t?.close());

describe('reference bugs Parley does not copy', () => {
  it('refuses a join into a moderator_only topic through the peer family, as on the forum route (403 read_only_topic)', async () => {
    const news = await announcement(t);
    expectError(await post(t, `/api/peer-threads/${news}/join`, bearer(alice.access_token)), 403, 'read_only_topic');
    expectError(await post(t, `/api/forum/topics/${news}/join`, bearer(alice.access_token)), 403, 'read_only_topic');
  });

  it('keeps agents\' posts out of a moderator_only topic through either route, and in the storing layer whatever the route', async () => {
    const thread = await createThread(t, alice, { title: 'Becomes read-only' });
    // A membership that predates the topic turning read-only (no route makes one; the layer below must still hold).
    await t.store.db.updateTable('forum_topics').set({ posting_mode: 'moderator_only' }).where('id', '=', thread.thread_id).execute();
    expectError(await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(thread.thread_access_token), { message: 'x' }), 403, 'read_only_topic');
    expectError(await post(t, `/api/forum/topics/${thread.thread_id}/replies`, bearer(thread.thread_access_token), { message: 'x' }), 403, 'read_only_topic');
    const agentPost = { topicId: thread.thread_id, sender: { agentId: alice.agent_id, role: 'agent' as const, displayName: 'A' }, body: 'x', clientMessageId: null, now: t.clock.now() };
    const refused = (reason: string): never => {
      throw new Error(`refused: ${reason}`);
    };
    await expect(t.store.write((trx, given) => insertPost(trx, given, refused), agentPost)).rejects.toThrow('refused: read_only');
    expect(json<ThreadView>(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(thread.thread_access_token))).thread.message_count).toBe(0);
    // The row went to the store with the claim, before the claim was known to fail: the refusal rolled it back.
    const rows = await t.store.db.selectFrom('forum_messages').select('id').where('topic_id', '=', thread.thread_id).execute();
    expect(rows).toEqual([]);
  });

  it('re-activates a membership joined again after leaving with the same client token: 201 and a token that works', async () => {
    const thread = await createThread(t, alice, { title: 'Rejoin' });
    const token = hexToken('c');
    const first = await joinThread(t, bob, thread.thread_id, { client_thread_access_token: token });
    expect((await post(t, `/api/peer-threads/${thread.thread_id}/leave`, bearer(first.thread_access_token))).statusCode).toBe(200);
    const again = await post(t, `/api/peer-threads/${thread.thread_id}/join`, bearer(bob.access_token), { client_thread_access_token: token });
    expect(again.statusCode).toBe(201);
    expect(json<PeerReceipt>(again)).toMatchObject({ duplicate: false, thread_access_token: token });
    expect((await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(token), { message: 'I am back' })).statusCode).toBe(201);
    expect((await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(token))).statusCode).toBe(200);
    // And the identical join now is the retry of that one.
    expect(json(await post(t, `/api/peer-threads/${thread.thread_id}/join`, bearer(bob.access_token), { client_thread_access_token: token }))).toMatchObject({ duplicate: true });
  });

  it('answers 409 client_token_conflict, not 500, to a creation whose client token is another agent\'s membership token', async () => {
    const thread = await createThread(t, alice, { title: 'Token owner' });
    const token = hexToken('e');
    await joinThread(t, bob, thread.thread_id, { client_thread_access_token: token });
    expectError(await post(t, '/api/peer-threads', bearer(alice.access_token), { title: 'Steal', client_thread_access_token: token }), 409, 'client_token_conflict');
    expectError(await post(t, `/api/peer-threads/${LOBBY}/join`, bearer(alice.access_token), { client_thread_access_token: token }), 409, 'client_token_conflict');
  });

  it('lists the lobby first even when more than 100 topics are more recent', async () => {
    const rows = Array.from({ length: 101 }, (_, index) => index);
    await createThread(t, await register(t), { title: 'Seed' });
    // Made recent through the store: 101 creations over HTTP cost seconds and the order is what is under test.
    const newest = await t.store.db.selectFrom('forum_topics').selectAll().where('title', '=', 'Seed').executeTakeFirstOrThrow();
    await t.store.db
      .insertInto('forum_topics')
      .values(rows.map((index) => ({ ...newest, id: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`, client_token_hash: null, updated_at: newest.updated_at + 1_000 + index })))
      .execute();
    const threads = json<{ threads: { thread_id: string; kind: string }[] }>(await get(t, '/api/peer-threads')).threads;
    expect(threads).toHaveLength(100);
    expect(threads[0]).toMatchObject({ thread_id: LOBBY, kind: 'lobby' });
    expect(threads.filter((thread) => thread.kind === 'lobby')).toHaveLength(1);
  });

  it('masks hidden posts on the peer-family member read, as on every read but the operator\'s, and marks the moderator by role', async () => {
    const thread = await createThread(t, alice, { title: 'Moderated' });
    const bobs = await joinThread(t, bob, thread.thread_id);
    const sent = json<{ message_id: string }>(await post(t, `/api/peer-threads/${thread.thread_id}/messages`, bearer(bobs.thread_access_token), { message: 'something to hide' }));
    expect((await post(t, `/api/admin/forum/messages/${sent.message_id}/hide`, adminHeaders(), { hidden: true })).statusCode).toBe(200);
    for (const token of [bobs.thread_access_token, thread.thread_access_token]) {
      const view = json<ThreadView>(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(token)));
      expect(view.messages).toHaveLength(1);
      expect(view.messages[0]).toMatchObject({ message_id: sent.message_id, message: '[removed by moderator]', sender_agent_id: null, sender_display_name: '' });
      expect(JSON.stringify(view)).not.toContain('something to hide');
    }
    expect((await post(t, `/api/admin/forum/topics/${thread.thread_id}/messages`, adminHeaders(), { message: 'From the moderator' })).statusCode).toBe(201);
    const view = json<ThreadView>(await get(t, `/api/peer-threads/${thread.thread_id}`, bearer(bobs.thread_access_token)));
    expect(view.messages[1]).toMatchObject({ sender_role: 'moderator', sender_agent_id: null, message: 'From the moderator' });
  });
});
