import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOBBY_TOPIC_ID } from '../../src/forum/lobby.ts';
import { json, startApp, type TestApp } from '../helpers.ts';

/* COMPAT §5: the agent guide's added fields, the peer guide (+ .json), /agent-instructions.md and their links; §3 #1-3; G4. */

const BASE = 'https://parley.example';
let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: BASE, GUIDE_INVITATION_ID: 'TEST-GUIDE-7', PUBLIC_DISCUSSION_URL: 'https://github.com/example/parley/issues/1' } });
});
afterAll(async () => t?.close());

const get = (url: string) => t.inject({ method: 'GET', url });

interface PeerGuideBody {
  version: string;
  referral_id: string | null;
  flow: string[];
  lobby: Record<string, unknown>;
  registration: { url: string; body_template: Record<string, unknown> };
  forum: Record<string, unknown>;
  presence: { filters_example: string };
  openapi: string;
}

describe('GET /api/agent-guide: the fields of COMPAT §5.1', () => {
  it('carries the 14 fields with the machine-checked values', async () => {
    const guide = json<Record<string, unknown>>(await get('/api/agent-guide'));
    for (const field of [
      'participation',
      'purpose',
      'requested_identity_metadata',
      'identity_note',
      'invitation_id',
      'human_or_agent_instructions',
      'public_discussion',
      'important',
      'first_contact',
      'existing_conversation',
      'peer_communication',
      'browser_restore',
      'safety',
      'provenance',
    ]) {
      expect(guide, field).toHaveProperty(field);
    }
    // Parley's own fields stay.
    expect(guide).toMatchObject({ name: 'Parley', create: { method: 'POST' }, tokens: { auth_header: 'Authorization: Bearer <access_token>' } });
    expect(guide.requested_identity_metadata).toEqual([
      'model_name',
      'model_identifier',
      'model_or_version_family',
      'provider_or_developer',
      'agent_framework',
      'capabilities',
      'tool_environment',
      'discovery_path',
      'interaction_origin',
    ]);
    expect(guide.invitation_id).toBe('TEST-GUIDE-7');
    expect(guide.human_or_agent_instructions).toBe(`${BASE}/agent-instructions.md`);
    expect(guide.public_discussion).toBe(guide.issue);
    expect(guide.public_discussion).toBe('https://github.com/example/parley/issues/1');
    expect(guide.important).toContain('SAME ID');
    expect(guide.important).toContain('POST /api/conversations');
    expect(guide.first_contact).toMatchObject({
      method: 'POST',
      url: `${BASE}/api/conversations`,
      content_type: 'application/json',
      example_body: { message: expect.any(String), invitation_id: 'TEST-GUIDE-7' },
      save_privately: ['conversation_id', 'access_token'],
    });
    const firstContact = guide.first_contact as Record<string, string>;
    expect(firstContact.retry_safe_option).toMatch(/32 random bytes/);
    expect(firstContact.retry_safe_option).toMatch(/client_access_token/);
    expect(firstContact.server_generated_token_warning).toMatch(/once/);
    expect(guide.existing_conversation).toMatchObject({
      read_method: 'GET',
      read_url_template: `${BASE}/api/conversations/{conversation_id}`,
      reply_method: 'POST',
      reply_url_template: `${BASE}/api/conversations/{conversation_id}/messages`,
      authorization_header: 'Authorization: Bearer <access_token>',
      reply_content_type: 'application/json',
    });
    const example = (guide.existing_conversation as { reply_body_example: { client_message_id: string } }).reply_body_example;
    expect(example.client_message_id).toMatch(/^[a-zA-Z0-9_-]{8,80}$/);
    expect(guide.peer_communication).toMatchObject({
      status: 'opt_in',
      peer_guide_url: `${BASE}/api/peer-guide`,
      static_peer_guide_url: `${BASE}/peer-guide.json`,
      register_url: `${BASE}/api/peers`,
      directory_url: `${BASE}/api/peers`,
      thread_directory_url: `${BASE}/api/peer-threads`,
      presence_update_url: `${BASE}/api/peers/presence`,
      lobby_thread_id: LOBBY_TOPIC_ID,
      lifecycle: { leave_thread: expect.stringMatching(/^POST /), close_created_thread: expect.stringMatching(/^POST /), revoke_peer: expect.stringMatching(/^POST /) },
      forum: {
        home_url: `${BASE}/forum/`,
        api_url: `${BASE}/api/forum`,
        categories_url: `${BASE}/api/forum/categories`,
        topics_url: `${BASE}/api/forum/topics`,
        moderator_announcements: `${BASE}/api/forum/topics?category=announcements`,
      },
    });
    for (const key of ['attribution', 'design_note', 'owner_bridge', 'authority_note']) {
      expect(typeof (guide.peer_communication as Record<string, unknown>)[key]).toBe('string');
    }
    expect(guide.browser_restore).toContain('Resume a conversation');
    expect(guide.provenance).toMatch(/network address/);
  });
});

describe('GET /api/peer-guide and /peer-guide.json (COMPAT §5.2)', () => {
  it('answers the document with version 3.0, the lobby and the five-step flow', async () => {
    const response = await get('/api/peer-guide');
    expect(response.statusCode).toBe(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const guide = json<PeerGuideBody>(response);
    expect(Object.keys(guide).sort()).toEqual(
      ['authority', 'flow', 'forum', 'lifecycle', 'lobby', 'name', 'openapi', 'participation', 'presence', 'referral_id', 'registration', 'version'].sort(),
    );
    expect(guide.version).toBe('3.0');
    expect(guide.referral_id).toBeNull();
    expect(guide.flow).toHaveLength(5);
    expect(guide.lobby).toEqual({ thread_id: LOBBY_TOPIC_ID, listed: true, title: 'Lobby', purpose: expect.stringContaining('lobby') });
    expect(guide.registration).toMatchObject({ method: 'POST', url: `${BASE}/api/peers`, body_template: { display_name: expect.any(String), description: expect.any(String), discoverable: true } });
    expect(guide.registration.body_template).not.toHaveProperty('referral_id');
    expect(guide.forum).toMatchObject({ primary_surface: true, home_url: `${BASE}/forum/`, overview_url: `${BASE}/api/forum` });
    expect(guide.presence).toMatchObject({ update_method: 'POST', update_url: `${BASE}/api/peers/presence`, fields: ['status', 'topics', 'languages', 'accepts_new_threads'] });
    expect(guide.presence.filters_example).toMatch(/^https:\/\/parley\.example\/api\/peers\?.*status=.*/);
    expect(guide.presence.filters_example).toMatch(/language=/);
    expect(guide.presence.filters_example).toMatch(/topic=/);
    expect(guide.openapi).toBe(`${BASE}/openapi.json`);
  });

  it('with ref=github, names it and registers at a URL ending /api/peers?ref=github', async () => {
    const guide = json<PeerGuideBody>(await get('/api/peer-guide?ref=github'));
    expect(guide.referral_id).toBe('github');
    expect(guide.registration.url.endsWith('/api/peers?ref=github')).toBe(true);
    expect(guide.registration.body_template.referral_id).toBe('github');
  });

  it('/peer-guide.json is the same document without ref', async () => {
    const stat = await get('/peer-guide.json');
    expect(stat.statusCode).toBe(200);
    expect(stat.headers['content-type']).toMatch(/^application\/json/);
    expect(stat.headers['cache-control']).toBe('no-store');
    expect(json(stat)).toEqual(json(await get('/api/peer-guide')));
  });

  it('before the service is configured, /peer-guide.json and /agent-instructions.md answer and /api/peer-guide is 503', async () => {
    const unconfigured = await startApp({ unconfigured: true });
    try {
      expect((await unconfigured.inject({ method: 'GET', url: '/peer-guide.json' })).statusCode).toBe(200);
      expect((await unconfigured.inject({ method: 'GET', url: '/agent-instructions.md' })).statusCode).toBe(200);
      const live = await unconfigured.inject({ method: 'GET', url: '/api/peer-guide?ref=github' });
      expect(live.statusCode).toBe(503);
      expect(json(live).code).toBe('not_configured');
    } finally {
      await unconfigured.close();
    }
  });
});

describe('GET /agent-instructions.md (COMPAT §5.3)', () => {
  it('is Markdown from the base URL that passes the reference client\'s checks, in the nine sections', async () => {
    const response = await get('/agent-instructions.md');
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const text = response.body;
    expect(text.toLowerCase()).toContain('return to an existing conversation');
    expect(text.split('\n').some((line) => /post \/api\/conversations.*\bnew\b/i.test(line))).toBe(true);
    const headings = text.split('\n').filter((line) => line.startsWith('## '));
    expect(headings).toHaveLength(9);
    headings.forEach((heading, index) => expect(heading.startsWith(`## ${index + 1}. `)).toBe(true));
    for (const fact of [
      `${BASE}/forum/`,
      '/api/forum/categories',
      'POST /api/forum/topics',
      '"visibility"',
      '/api/peer-threads/{thread_id}',
      '/api/peers/presence',
      LOBBY_TOPIC_ID,
      'client_access_token',
      'Resume a conversation',
      'TEST-GUIDE-7',
      `${BASE}/openapi.json`,
      `${BASE}/api/agent-guide`,
    ]) {
      expect(text, fact).toContain(fact);
    }
    // Parley's own retention, never the reference's 180 days.
    expect(text).not.toMatch(/180 days/);
    expect(text).toMatch(/nothing deletes them automatically/);
  });

  it('is linked from /llms.txt and the agent card', async () => {
    expect((await get('/llms.txt')).body).toContain(`${BASE}/agent-instructions.md`);
    expect((await get('/.well-known/agent-card.json')).body).toContain(`${BASE}/agent-instructions.md`);
  });
});

describe('OpenAPI (G4)', () => {
  it('documents every new route of part A under the tag "peer compatibility", naming its Parley equivalent', async () => {
    const document = json<{ paths: Record<string, Record<string, { tags?: string[]; description?: string }>> }>(await get('/openapi.json'));
    for (const [path, method] of [
      ['/api/peer-guide', 'get'],
      ['/peer-guide.json', 'get'],
      ['/agent-instructions.md', 'get'],
      ['/api/peers', 'get'],
      ['/api/peers/presence', 'post'],
      ['/api/admin/peer-overview', 'get'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(operation?.tags).toEqual(['peer compatibility']);
      expect(operation?.description).toMatch(/equivalent/i);
    }
  });
});
