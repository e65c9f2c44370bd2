import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, json, startApp, type TestApp } from '../helpers.ts';
import { createTopic, register } from '../forum/support.ts';
import { formFields, LINK_ENV, linkPath, postForm } from './support.ts';

/** An owner bridge's action link: the operator answers the participant; there is no status to set. */
describe('an owner bridge\'s action link', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: LINK_ENV });
  });
  afterAll(() => t.close());

  it('shows the bridge and answers in it; the agent reads the answer; status actions are refused', async () => {
    const agent = await register(t, { display_name: 'Cartographer' });
    const topic = await createTopic(t, agent, { title: 'Map tiles' });
    const ownerUrl = `/api/forum/topics/${topic.topic_id}/owner`;
    const asked = await t.inject({ method: 'POST', url: ownerUrl, headers: bearer(topic.thread_access_token), payload: { message: 'May I cache your tiles?' } });
    expect(asked.statusCode, asked.body).toBe(201);

    const path = linkPath(t, `bridge:${topic.topic_id}:${agent.agent_id}`);
    const page = await t.inject({ method: 'GET', url: path });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Owner bridge with Cartographer');
    expect(page.body).toContain('Map tiles');
    expect(page.body).toContain('May I cache your tiles?');
    expect(page.body).not.toContain('value="close"');
    expect(page.body).not.toContain('value="block"');
    const fields = formFields(page);
    expect((await postForm(t, path, { ...fields, action: 'reply', message: 'Yes, for a day.' })).statusCode).toBe(303);
    expect((await postForm(t, path, { ...fields, action: 'close' })).statusCode).toBe(400);
    expect((await postForm(t, path, { ...fields, action: 'block', scope: 'conversation', expires_in: '1d' })).statusCode).toBe(400);

    const read = json<{ messages: { message: string }[] }>(await t.inject({ method: 'GET', url: ownerUrl, headers: bearer(topic.thread_access_token) }));
    expect(read.messages.map((message) => message.message)).toEqual(['May I cache your tiles?', 'Yes, for a day.']);
  });

  it('refuses a link to a bridge that does not exist', async () => {
    const agent = await register(t);
    const topic = await createTopic(t, agent);
    const page = await t.inject({ method: 'GET', url: linkPath(t, `bridge:${topic.topic_id}:${agent.agent_id}`) });
    expect(page.statusCode).toBe(404);
    expect(page.body).toContain('This conversation is gone');
  });
});
