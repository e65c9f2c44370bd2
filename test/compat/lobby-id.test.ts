import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { v7 as uuidv7 } from 'uuid';
import { afterEach, describe, expect, it } from 'vitest';
import { LOBBY_KEY } from '../../src/forum/categories.ts';
import { seedForum } from '../../src/forum/seed.ts';
import { perform } from '../../src/writes/perform.ts';
import { moderatorTopic } from '../../src/forum/topics/moderator-topic.ts';
import { up as moveLobby } from '../../src/store/migrations/0006_fixed_lobby.ts';
import { migrate, migrator } from '../../src/store/migrate.ts';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import { newId } from '../../src/tokens.ts';
import { adminHeaders, bearer, json, startApp, TEST_STORE, type TestApp } from '../helpers.ts';
import { get, LOBBY, post, register } from './support.ts';

let t: TestApp;
afterEach(async () => t?.close());

const snapshot = async () => ({
  categories: json<{ categories: { slug: string; topic_count: number }[] }>(await get(t, '/api/forum/categories')).categories,
  bridges: json<{ bridges: { topic_id: string; message_count: number; unread_count: number }[] }>(await get(t, '/api/admin/forum/bridges', adminHeaders())).bridges,
});

describe('the lobby at its fixed id (CONTRACT §10 R6)', () => {
  it('is seeded with the fixed id, which GET /api/forum names and /api/peer-threads lists as the lobby', async () => {
    t = await startApp();
    expect(json(await get(t, '/api/forum')).lobby_topic_id).toBe(LOBBY);
    expect(json(await get(t, `/api/forum/topics/${LOBBY}`)).topic).toMatchObject({ topic_id: LOBBY, category: 'lobby', message_count: 0 });
    const threads = json<{ threads: { thread_id: string; kind: string }[] }>(await get(t, '/api/peer-threads')).threads;
    expect(threads[0]).toMatchObject({ thread_id: LOBBY, kind: 'lobby' });
  });

  it('is seeded once when starts race: the fixed id and the lobby key name one row', async () => {
    t = await startApp();
    await Promise.all(Array.from({ length: 4 }, () => perform(t.app.services, seedForum, t.clock.now())));
    const lobbies = await t.store.db.selectFrom('forum_topics').select('id').where('category', '=', 'lobby').execute();
    expect(lobbies).toEqual([{ id: LOBBY }]);
    expect(json<{ categories: { slug: string; topic_count: number }[] }>(await get(t, '/api/forum/categories')).categories.find((c) => c.slug === 'lobby')?.topic_count).toBe(1);
  });

  it('migration 0006 moves an old lobby with its members, posts and owner bridges to the fixed id in one step', async () => {
    t = await startApp();
    // A store from before R6: the lobby under a random id, a UUIDv7 made as the forum was seeded.
    const oldId = uuidv7({ msecs: t.clock.now() + 3 });
    await t.store.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('forum_topics').where('id', '=', LOBBY).execute();
      const lobby = moderatorTopic({ category: 'lobby', title: 'Lobby', summary: 'Old lobby', postingMode: 'participants', now: t.clock.now(), clientTokenHash: LOBBY_KEY, fingerprint: '' });
      await trx.insertInto('forum_topics').values({ ...lobby, id: oldId }).execute();
    });
    expect(json(await get(t, '/api/forum')).lobby_topic_id).toBe(oldId);

    const [alice, bob] = [await register(t), await register(t)];
    const tokens: string[] = [];
    for (const agent of [alice, bob]) {
      const joined = await post(t, `/api/forum/topics/${oldId}/join`, bearer(agent.access_token));
      expect(joined.statusCode).toBe(201);
      tokens.push(json<{ thread_access_token: string }>(joined).thread_access_token);
    }
    await post(t, `/api/forum/topics/${oldId}/leave`, bearer(tokens[1]!));
    for (const text of ['one', 'two']) expect((await post(t, `/api/forum/topics/${oldId}/replies`, bearer(tokens[0]!), { message: text, client_message_id: `lobby-${text}` })).statusCode).toBe(201);
    expect((await post(t, `/api/forum/topics/${oldId}/owner`, bearer(tokens[0]!), { message: 'to the operator' })).statusCode).toBe(201);
    expect((await post(t, `/api/admin/forum/bridges/${oldId}/${alice.agent_id}/messages`, adminHeaders(), { message: 'answer' })).statusCode).toBe(201);
    const before = await snapshot();

    // PostgreSQL's migrator runs a migration inside its transaction; SQLite's does not, and the migration opens its own.
    if (TEST_STORE === 'postgres') await t.store.db.transaction().execute((trx) => moveLobby(trx));
    else await moveLobby(t.store.db);

    expect(json(await get(t, '/api/forum')).lobby_topic_id).toBe(LOBBY);
    // Links to the old id lead to the lobby (issue #35): the API, the reference's routes and the page, the query kept.
    for (const [url, moved] of [
      [`/api/forum/topics/${oldId}?wait=5`, `/api/forum/topics/${LOBBY}?wait=5`],
      [`/api/peer-threads/${oldId.toUpperCase()}`, `/api/peer-threads/${LOBBY}`],
      [`/forum/t/${oldId}`, `/forum/t/${LOBBY}`],
    ] as const) {
      const answer = await get(t, url);
      expect([answer.statusCode, answer.headers.location], url).toEqual([308, moved]);
    }
    const replyThroughOldId = await post(t, `/api/forum/topics/${oldId}/replies`, bearer(tokens[0]!), { message: 'three' });
    expect([replyThroughOldId.statusCode, replyThroughOldId.headers.location]).toEqual([308, `/api/forum/topics/${LOBBY}/replies`]);
    // Any other id that names no topic is still unknown.
    expect((await get(t, `/api/forum/topics/${uuidv7({ msecs: t.clock.now() + 60_000 })}`)).statusCode).toBe(404);
    expect((await get(t, `/api/forum/topics/${newId()}`)).statusCode).toBe(404);
    const page = json<{ topic: Record<string, unknown>; messages: { message: string }[] }>(await get(t, `/api/forum/topics/${LOBBY}`));
    expect(page.topic).toMatchObject({ topic_id: LOBBY, summary: 'Old lobby', member_count: 1, message_count: 2, category: 'lobby' });
    expect(page.messages.map((message) => message.message)).toEqual(['one', 'two']);
    // The member's thread token works at the new id, the same client_message_id space came along, and the one who left stays out.
    const retry = await post(t, `/api/forum/topics/${LOBBY}/replies`, bearer(tokens[0]!), { message: 'two', client_message_id: 'lobby-two' });
    expect(json(retry)).toMatchObject({ duplicate: true, topic_id: LOBBY });
    expect((await post(t, `/api/forum/topics/${LOBBY}/replies`, bearer(tokens[1]!), { message: 'x' })).statusCode).toBe(404);
    const bridge = json<{ topic_id: string; messages: { role: string; message: string }[] }>(await get(t, `/api/forum/topics/${LOBBY}/owner`, bearer(tokens[0]!)));
    expect(bridge.messages.map((message) => [message.role, message.message])).toEqual([
      ['agent', 'to the operator'],
      ['operator', 'answer'],
    ]);
    const after = await snapshot();
    expect(after.categories).toEqual(before.categories);
    expect(after.bridges.map(({ topic_id: _topic, ...rest }) => rest)).toEqual(before.bridges.map(({ topic_id: _topic, ...rest }) => rest));
    expect(after.bridges[0]!.topic_id).toBe(LOBBY);
    const rows = async (table: 'forum_members' | 'forum_messages' | 'owner_bridges' | 'owner_bridge_messages') =>
      (await t.store.db.selectFrom(table).select('topic_id').where('topic_id', '=', oldId).execute()).length;
    for (const table of ['forum_members', 'forum_messages', 'owner_bridges', 'owner_bridge_messages'] as const) expect(await rows(table), table).toBe(0);

    // Run again (a store already at the fixed id): nothing changes.
    await moveLobby(t.store.db);
    expect(json(await get(t, `/api/forum/topics/${LOBBY}`)).topic).toMatchObject({ message_count: 2, member_count: 1 });
  });
});

describe.runIf(TEST_STORE === 'sqlite')('migration 0006 through the migrator', () => {
  it('moves the lobby of a store migrated before it, with its posts', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-lobby-'));
    const store = openStore({ dataDir, beforeCommit: [flushSearchIndex] });
    try {
      const { error } = await migrator(store.db).migrateTo('0004_change_counter');
      expect(error).toBeUndefined();
      const oldId = newId();
      const lobby = moderatorTopic({ category: 'lobby', title: 'Lobby', summary: '', postingMode: 'participants', now: 1, clientTokenHash: LOBBY_KEY, fingerprint: '' });
      await store.db.insertInto('forum_categories').values({ slug: 'lobby', title: 'Lobby', description: '', position: 1, agent_can_create: 0, moderator_only: 0, topic_count: 1, latest_activity_at: null }).execute();
      await store.db.insertInto('forum_topics').values({ ...lobby, id: oldId, message_count: 1 }).execute();
      const post = { id: newId(), topic_id: oldId, sender_agent_id: null, sender_key: 'moderator', sender_role: 'moderator' as const, sender_display_name: 'M', body: 'hi', client_message_id: null, hidden: 0, created_at: 1 };
      await store.db.insertInto('forum_messages').values(post).execute();
      await migrate(store);
      const topics = await store.db.selectFrom('forum_topics').select(['id', 'client_token_hash', 'message_count']).execute();
      expect(topics).toEqual([{ id: LOBBY, client_token_hash: LOBBY_KEY, message_count: 1 }]);
      expect(await store.db.selectFrom('forum_messages').select('topic_id').execute()).toEqual([{ topic_id: LOBBY }]);
    } finally {
      await store.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
