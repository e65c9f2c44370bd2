import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: 'https://parley.example' } });
});
afterAll(() => t.close());

describe('discovery documents', () => {
  it('serves llms.txt from the agent guide with absolute URLs', async () => {
    const response = await t.inject({ method: 'GET', url: '/llms.txt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/markdown/);
    expect(response.body).toMatch(/^# Parley\n/);
    expect(response.body).toContain('POST https://parley.example/api/conversations');
    expect(response.body).toContain('client_access_token');
    expect(response.body).toContain('https://parley.example/openapi.json');
    expect(response.body).toContain('https://parley.example/.well-known/agent-card.json');
    expect(response.body).toMatch(/Do not submit credentials/);
  });

  it('serves an A2A 1.0 agent card whose endpoint needs nothing to start and a bearer token after', async () => {
    const response = await t.inject({ method: 'GET', url: '/.well-known/agent-card.json' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const card = response.json();
    expect(card).toMatchObject({
      name: 'Parley',
      url: 'https://parley.example/api/a2a',
      version: '0.1.0',
      defaultInputModes: ['text/plain'],
      defaultOutputModes: ['text/plain'],
    });
    expect(card.supportedInterfaces[0]).toEqual({ url: 'https://parley.example/api/a2a', protocolBinding: 'JSONRPC', protocolVersion: '1.0' });
    expect(card).not.toHaveProperty('securityRequirements');
    expect(card.skills.map((skill: { id: string }) => skill.id)).toEqual(['first-contact', 'forum']);
    expect(card.skills[0].description).toContain('https://parley.example/api/conversations');
    expect(card.skills[1].description).toContain('https://parley.example/api/peers');
    expect(card.securitySchemes.conversationBearer.httpAuthSecurityScheme).toMatchObject({ scheme: 'bearer' });
    expect(card.securitySchemes.conversationBearer.httpAuthSecurityScheme.description).toMatch(/The conversation token/);
  });

  it('serves robots.txt keeping crawlers out of the console and private API paths', async () => {
    const response = await t.inject({ method: 'GET', url: '/robots.txt' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^text\/plain/);
    const lines = response.body.split('\n');
    for (const path of ['/admin/', '/api/admin/', '/api/conversations/']) expect(lines).toContain(`Disallow: ${path}`);
  });

  it('builds URLs from the request host when no PUBLIC_URL is set, and works while unconfigured', async () => {
    const bare = await startApp({ unconfigured: true });
    try {
      const response = await bare.inject({ method: 'GET', url: '/llms.txt', headers: { host: 'agents.test:8787' } });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain('POST http://agents.test:8787/api/conversations');
      const page = await bare.inject({ method: 'GET', url: '/' });
      expect(page.statusCode).toBe(200);
    } finally {
      await bare.close();
    }
  });
});

describe('/llms.txt in the llms.txt convention', () => {
  let lean: string;
  let full: string;
  beforeAll(async () => {
    lean = (await t.inject({ method: 'GET', url: '/llms.txt' })).body;
    full = (await t.inject({ method: 'GET', url: '/llms-full.txt' })).body;
  });

  it('is an H1, a summary blockquote, prose, then H2 sections of link lists ending with "Optional"', () => {
    const lines = lean.split('\n');
    expect(lines[0]).toBe('# Parley');
    expect(lines[2]).toMatch(/^> /);
    expect(lines.filter((line) => line.startsWith('# '))).toHaveLength(1);
    const headings = lines.filter((line) => line.startsWith('## '));
    expect(headings.at(-1)).toBe('## Optional');
    const sections = lean.split('\n## ').slice(1);
    for (const section of sections) {
      const items = section.split('\n').slice(1).filter((line) => line.trim() !== '');
      expect(items.length, section).toBeGreaterThan(0);
      for (const item of items) expect(item, section).toMatch(/^- /);
      expect(items.some((item) => /\[[^\]]+\]\(https?:\/\/[^)]+\)/.test(item)), section).toBe(true);
    }
  });

  it('is enough on its own for first contact and waiting, and links the full guide, which holds the detail', async () => {
    const essentials = ['POST https://parley.example/api/conversations', '?wait=60', 'If-None-Match', 'Authorization: Bearer <access_token>', '[The full guide](https://parley.example/llms-full.txt)'];
    for (const essential of essentials) expect(lean).toContain(essential);
    for (const heading of ['## When a request fails', '## Tokens and retries']) expect(full).toContain(heading);
  });

  it('carries the create-topic body and the retry-safe join, in llms.txt, the full guide and skill.md alike', async () => {
    const skill = (await t.inject({ method: 'GET', url: '/skill.md' })).body;
    for (const document of [lean, full, skill]) {
      expect(document).toContain('`POST https://parley.example/api/forum/topics`');
      expect(document).toMatch(/"title":"[^"]+","message":"[^"]+"/);
      expect(document).toContain('`POST https://parley.example/api/forum/topics/{topic_id}/join`');
      expect(document).toContain('{"client_thread_access_token":"<64 hex characters you generated>"}');
      expect(document).toContain('409 already_member');
    }
  });

  it('serves no template text', async () => {
    for (const url of ['/llms.txt', '/llms-full.txt', '/skill.md', '/api/agent-guide', '/openapi.json', '/.well-known/agent-card.json', '/agent-instructions.md']) {
      expect((await t.inject({ method: 'GET', url })).body, url).not.toMatch(/PUBLIC_DISCUSSION_URL|PUBLIC_URL|\$\{/);
    }
  });
});
