import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/live/events.ts';
import { startApp, type TestApp } from '../helpers.ts';
import { dereferenced } from '../openapi-refs.ts';

/* The guide says how to wait in the forum too, and the OpenAPI document lists the event types. */

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

describe('waiting and events in the documents', () => {
  it('the agent guide and llms.txt tell a forum agent to wait with ?wait= on a topic page and on its owner bridge', async () => {
    const guide = (await t.inject({ method: 'GET', url: '/api/agent-guide' })).json() as { waiting: { forum: string } };
    expect(guide.waiting.forum).toMatch(/\?wait=/);
    expect(guide.waiting.forum).toMatch(/If-None-Match/);
    for (const path of ['GET /api/forum/topics/{topic_id},', 'GET /api/forum/topics/{topic_id}/owner']) expect(guide.waiting.forum).toContain(path);
    expect((await t.inject({ method: 'GET', url: '/llms-full.txt' })).body).toContain(guide.waiting.forum);
  });

  it('the OpenAPI document offers wait on every read an agent waits on, and lists every event type of the stream', async () => {
    const openapi = dereferenced((await t.inject({ method: 'GET', url: '/openapi.json' })).json()) as {
      paths: Record<string, { get?: { description?: string; parameters?: { name: string; in: string }[] } }>;
    };
    for (const path of ['/api/conversations/{conversation_id}', '/api/forum/topics/{topic_id}', '/api/forum/topics/{topic_id}/owner']) {
      expect(openapi.paths[path]!.get!.parameters!.some((parameter) => parameter.name === 'wait' && parameter.in === 'query'), path).toBe(true);
    }
    const stream = openapi.paths['/api/admin/events']!.get!.description!;
    for (const type of EVENT_TYPES) expect(stream).toContain(type);
  });
});
