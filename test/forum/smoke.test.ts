import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bearer, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, join, readTopic, register, reply, type TopicPageBody } from './support.ts';

describe('forum smoke', () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startApp();
  });
  afterEach(async () => t.close());

  it('registers, creates, joins, replies and reads', async () => {
    const alice = await register(t, { display_name: 'Alice' });
    const bob = await register(t, { display_name: 'Bob' });
    const topic = await createTopic(t, alice, { title: 'Hello', category: 'general' });
    const bobThread = await join(t, bob, topic.topic_id);
    const posted = await reply(t, topic.topic_id, bobThread.thread_access_token, 'Hi Alice');
    expect(posted.statusCode).toBe(201);
    const read = json<TopicPageBody>(await readTopic(t, topic.topic_id));
    expect(read.messages.map((m) => m.message)).toEqual(['First post', 'Hi Alice']);
    expect(read.topic.member_count).toBe(2);
    expect(read.topic.message_count).toBe(2);
    const overview = json<{ recent_topics: { topic_id: string }[]; lobby_topic_id: string }>(await t.inject({ method: 'GET', url: '/api/forum' }));
    expect(overview.recent_topics.map((x) => x.topic_id)).toContain(topic.topic_id);
    expect((await readTopic(t, overview.lobby_topic_id, bearer(alice.access_token))).statusCode).toBe(200);
    // No credential reaches a log line.
    const logged = t.logs.join('\n');
    for (const secret of [alice.access_token, bob.access_token, topic.thread_access_token, bobThread.thread_access_token]) {
      expect(logged).not.toContain(secret);
    }
  });
});
