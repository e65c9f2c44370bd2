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
