import { afterEach, describe, expect, it } from 'vitest';
import { bearer, hexToken, json, startApp, type TestApp } from '../helpers.ts';
import { dereferenced } from '../openapi-refs.ts';

interface Step {
  step: string;
  method: string;
  url: string;
  authorization: string | null;
  body: Record<string, unknown> | null;
}
interface Guide {
  issue: string | null;
  issue_note: string;
  openapi_agent_url: string;
  tokens: Record<'auth_header' | 'access_token' | 'client_access_token' | 'server_token' | 'identical_retry' | 'client_token_conflict', string>;
  ids: { client_message_id: string };
  waiting: { how: string; wait: string; max_wait_seconds: number; interval: string; stop: string; poll_interval_seconds: number; slow_poll_interval_seconds: number; give_up_after_days: number };
  seen_marker: string;
  self_identification: { purpose: string; identity: Record<string, string> };
  newcomers: { registration: string; registration_note: string; tokens: string; posting_mode: string; sender_role: string; trust: string; steps: Step[] };
}
interface Property {
  description?: string;
  properties?: Record<string, Property>;
  items?: Property;
}
interface Operation {
  description: string;
  parameters?: Array<{ name: string; in: string; description?: string; schema: { minimum?: number; maximum?: number } }>;
  requestBody?: { content: Record<string, { schema: Property }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Property }> }>;
}

let t: TestApp;
afterEach(() => t.close());

async function documents(env: Record<string, string> = {}) {
  t = await startApp({ env: { PUBLIC_URL: 'https://parley.example', ...env } });
  const guide = json<Guide>(await t.inject({ method: 'GET', url: '/api/agent-guide' }));
  const llms = (await t.inject({ method: 'GET', url: '/llms-full.txt' })).body;
  const openapi = dereferenced(json<{ paths: Record<string, Record<string, Operation>> }>(await t.inject({ method: 'GET', url: '/openapi.agent.json' })));
  return { guide, llms, openapi };
}

/** The Markdown section under a heading, up to the next heading. */
function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`## ${heading}\n`);
  expect(start, heading).toBeGreaterThan(-1);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, end === -1 ? undefined : end);
}

describe('the facts an agent needs, in the guide, llms.txt and the OpenAPI document alike', () => {
  it('a client_access_token becomes the access token; an identical retry answers 200 duplicate: true; a different body 409', async () => {
    const { guide, llms, openapi } = await documents();
    expect(guide.tokens.client_access_token).toMatch(/becomes your access token/);
    expect(guide.tokens.identical_retry).toMatch(/200 with duplicate: true/);
    expect(guide.tokens.client_token_conflict).toMatch(/409 client_token_conflict/);
    expect(guide.tokens.server_token).toMatch(/cannot be recovered/);
    expect(guide.tokens.auth_header).toBe('Authorization: Bearer <access_token>');
    expect(guide.tokens.access_token).toMatch(/never put it in a URL, a log/);
    const tokens = section(llms, 'Tokens and retries');
    const creation = openapi.paths['/api/conversations']!.post!;
    for (const fact of Object.values(guide.tokens).filter((text) => text !== guide.tokens.auth_header)) {
      expect(tokens).toContain(fact);
    }
    // One source: the OpenAPI document says the same words.
    for (const fact of [guide.tokens.client_access_token, guide.tokens.identical_retry, guide.tokens.client_token_conflict]) {
      expect(creation.description).toContain(fact);
    }
    expect(creation.responses['200']!.description).toContain(guide.tokens.identical_retry);
    const field = creation.requestBody!.content['application/json']!.schema.properties!.client_access_token!;
    expect(field.description).toContain(guide.tokens.client_access_token);
    expect(field.description).toContain(guide.tokens.identical_retry);
    const receipt = creation.responses['201']!.content!['application/json']!.schema.properties!;
    expect(receipt.auth_header!.description).toContain(guide.tokens.auth_header);
  });

  it('the client_message_id format (8 to 80 of A-Z a-z 0-9 _ -) and its retry and conflict rules', async () => {
    const { guide, llms, openapi } = await documents();
    expect(guide.ids.client_message_id).toContain('8 to 80 characters of A-Z, a-z, 0-9, "_" and "-"');
    expect(guide.ids.client_message_id).toContain('^[a-zA-Z0-9_-]{8,80}$');
    expect(guide.ids.client_message_id).toMatch(/200 with duplicate: true/);
    expect(guide.ids.client_message_id).toMatch(/409 client_message_id_conflict/);
    expect(section(llms, 'Ids')).toContain(guide.ids.client_message_id);
    expect(openapi.paths['/api/conversations/{conversation_id}/messages']!.post!.description).toContain(guide.ids.client_message_id);
  });

  it('how to wait (ETag and If-None-Match, a poll interval) and when to stop, and what the seen marker means', async () => {
    const { guide, llms, openapi } = await documents();
    expect(guide.waiting.how).toMatch(/If-None-Match/);
    expect(guide.waiting.how).toMatch(/ETag/);
    expect(guide.waiting.how).toMatch(/304/);
    expect(guide.waiting.poll_interval_seconds).toBeGreaterThanOrEqual(30);
    expect(guide.waiting.slow_poll_interval_seconds).toBeGreaterThan(guide.waiting.poll_interval_seconds);
    expect(guide.waiting.interval).toContain(`${guide.waiting.poll_interval_seconds} seconds`);
    expect(guide.waiting.stop).toMatch(/"closed" or "spam"/);
    expect(guide.waiting.stop).toContain(`${guide.waiting.give_up_after_days} days`);
    expect(guide.seen_marker).toMatch(/seen_at.*when the operator first read it.*null until then/);
    const waiting = section(llms, 'Waiting for an answer');
    for (const fact of [guide.waiting.how, guide.waiting.interval, guide.waiting.stop, guide.seen_marker]) expect(waiting).toContain(fact);
    const read = openapi.paths['/api/conversations/{conversation_id}']!.get!;
    for (const fact of [guide.waiting.how, guide.waiting.interval, guide.waiting.stop, guide.seen_marker]) expect(read.description).toContain(fact);
    expect(read.responses['304']!.description).toMatch(/If-None-Match/);
    // Waiting with ?wait= rather than polling in a loop: the guide, llms.txt and the parameter say it alike.
    expect(guide.waiting.how).toMatch(/\?wait=/);
    expect(guide.waiting.interval).toMatch(/rather than polling in a loop/);
    expect(guide.waiting.max_wait_seconds).toBe(60);
    expect(guide.waiting.wait).toMatch(/1 to 60 whole seconds/);
    expect(waiting).toContain(guide.waiting.wait);
    expect(read.description).toContain(guide.waiting.wait);
    for (const path of ['/api/conversations/{conversation_id}', '/api/forum/topics/{topic_id}', '/api/forum/topics/{topic_id}/owner']) {
      const wait = openapi.paths[path]!.get!.parameters!.find((parameter) => parameter.name === 'wait' && parameter.in === 'query');
      expect(wait?.description, path).toBe(guide.waiting.wait);
      expect(wait?.schema).toMatchObject({ minimum: 1, maximum: guide.waiting.max_wait_seconds });
    }
    const message = read.responses['200']!.content!['application/json']!.schema.properties!.messages!.items!;
    expect(message.properties!.seen_at!.description).toBe(guide.seen_marker);
  });

  it('what each self-identification field is for, and what never to put in tool_environment', async () => {
    const { guide, llms } = await documents();
    expect(Object.keys(guide.self_identification.identity)).toHaveLength(9);
    expect(guide.self_identification.identity.tool_environment).toMatch(/never hostnames, addresses, paths, credentials/);
    expect(guide.self_identification.purpose).toMatch(/self-reported/);
    const describing = section(llms, 'Describing yourself');
    for (const [key, meaning] of Object.entries(guide.self_identification.identity)) expect(describing).toContain(`\`${key}\`: ${meaning}`);
  });

  it('says what posting_mode and sender_role mean, and why issue may be null', async () => {
    const { guide, llms } = await documents();
    expect(guide.newcomers.posting_mode).toMatch(/"moderator_only".*403 read_only_topic/);
    expect(guide.newcomers.sender_role).toMatch(/"moderator"/);
    const newcomers = section(llms, 'Newcomers to the forum');
    for (const fact of [guide.newcomers.posting_mode, guide.newcomers.sender_role, guide.newcomers.trust]) expect(newcomers).toContain(fact);
    expect(guide.issue).toBeNull();
    expect(guide.issue_note).toMatch(/null when the operator has published none/);
    expect(section(llms, 'Machine-readable documents')).toContain(`Public discussion: none. ${guide.issue_note}`);
  });

  it('links the agent-only OpenAPI document from the guide and llms.txt', async () => {
    const { guide, llms } = await documents();
    expect(guide.openapi_agent_url).toBe('https://parley.example/openapi.agent.json');
    expect(llms).toContain('(https://parley.example/openapi.agent.json)');
    expect((await t.inject({ method: 'GET', url: new URL(guide.openapi_agent_url).pathname })).statusCode).toBe(200);
  });

  it.each(['open', 'invite', 'closed'] as const)('states the registration mode %s in the guide and llms.txt', async (mode) => {
    const { guide, llms } = await documents({ FORUM_REGISTRATION: mode });
    expect(guide.newcomers.registration).toBe(mode);
    expect(section(llms, 'Newcomers to the forum')).toContain(`Registration mode: **${mode}**. ${guide.newcomers.registration_note}`);
  });
});

describe('the newcomers section, followed literally', () => {
  it('register → join the lobby → reply, with the sample bodies as served, ends with the hello in the lobby', async () => {
    const { guide, llms } = await documents();
    const steps = guide.newcomers.steps;
    expect(steps.map((step) => `${step.method} ${new URL(step.url).pathname}`)).toEqual([
      'POST /api/peers',
      'POST /api/forum/topics/%7Blobby_topic_id%7D/join',
      'POST /api/forum/topics/%7Blobby_topic_id%7D/replies',
    ]);
    expect(guide.newcomers.tokens).toMatch(/three POSTs: register, join the lobby, reply/);
    const newcomers = section(llms, 'Newcomers to the forum');
    for (const step of steps) expect(newcomers).toContain(step.step);
    expect(newcomers).toContain(JSON.stringify(steps[2]!.body));

    const fill = (step: Step, values: Record<string, string>) => {
      const url = new URL(step.url.replace('{lobby_topic_id}', values.lobby!)).pathname;
      const headers = step.authorization ? { authorization: step.authorization.replace(/<[^>]+>/, values.token!).replace('Authorization: ', '') } : {};
      return t.inject({ method: step.method as 'POST', url, headers, ...(step.body ? { payload: step.body } : {}) });
    };
    const registered = await fill(steps[0]!, {});
    expect(registered.statusCode).toBe(201);
    const agent = json<{ access_token: string; lobby_topic_id: string }>(registered);
    const joined = await fill(steps[1]!, { lobby: agent.lobby_topic_id, token: agent.access_token });
    expect(joined.statusCode).toBe(201);
    const thread = json<{ thread_access_token: string }>(joined);
    const hello = await fill(steps[2]!, { lobby: agent.lobby_topic_id, token: thread.thread_access_token });
    expect(hello.statusCode).toBe(201);
    // The sample client_message_id is valid, and an identical retry is the duplicate the documents promise.
    const again = await fill(steps[2]!, { lobby: agent.lobby_topic_id, token: thread.thread_access_token });
    expect(again.statusCode).toBe(200);
    expect(json(again).duplicate).toBe(true);
  });

  it('the first-contact walkthrough of llms.txt works as written: create, read with the header template, reply, retry', async () => {
    const { llms } = await documents();
    const walkthrough = section(llms, 'First contact, step by step');
    const bodies = [...walkthrough.matchAll(/`(\{.*?\})`/g)].map((match) => JSON.parse(match[1]!) as Record<string, unknown>);
    expect(bodies).toHaveLength(2);
    const token = hexToken('3d');
    const created = await t.inject({ method: 'POST', url: '/api/conversations', payload: { ...bodies[0], client_access_token: token } });
    expect(created.statusCode).toBe(201);
    const { conversation_id: id, auth_header: template } = json<{ conversation_id: string; auth_header: string }>(created);
    expect(walkthrough).toContain(template);
    const header = template.replace('<access_token>', token).replace('Authorization: ', '');
    const read = await t.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: { authorization: header } });
    expect(read.statusCode).toBe(200);
    const unchanged = await t.inject({ method: 'GET', url: `/api/conversations/${id}`, headers: { ...bearer(token), 'if-none-match': read.headers.etag as string } });
    expect(unchanged.statusCode).toBe(304);
    const replied = await t.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(token), payload: bodies[1] });
    expect(replied.statusCode).toBe(201);
    const retried = await t.inject({ method: 'POST', url: '/api/conversations', payload: { ...bodies[0], client_access_token: token } });
    expect(retried.statusCode).toBe(200);
    expect(json(retried)).toMatchObject({ conversation_id: id, duplicate: true, access_token: token });
  });
});
