import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, startApp, type TestApp } from '../helpers.ts';

/* Every discovery document names the MCP server; /skill.md is made from the guide's own facts. */

let t: TestApp;
beforeAll(async () => {
  t = await startApp({ env: { PUBLIC_URL: 'https://parley.example' } });
});
afterAll(() => t.close());

interface Guide {
  restrictions: string;
  skill_url: string;
  mcp: { url: string; transport: string; tools: string; tokens: string; waiting: string };
  tokens: { access_token: string; identical_retry: string; client_token_conflict: string; client_access_token: string };
  waiting: { how: string; stop: string };
  ids: { client_message_id: string };
  self_identification: { purpose: string };
}

const text = async (url: string) => (await t.inject({ method: 'GET', url })).body;

describe('discovery names the MCP server', () => {
  it('the guide, llms.txt, the agent card and the home page', async () => {
    const guide = json<Guide>(await t.inject({ method: 'GET', url: '/api/agent-guide' }));
    expect(guide.mcp.url).toBe('https://parley.example/mcp');
    expect(guide.mcp.transport).toMatch(/Streamable HTTP/);
    expect(guide.mcp.tools).toMatch(/start_conversation.*wait_for_reply/);
    expect(guide.skill_url).toBe('https://parley.example/skill.md');

    expect(await text('/llms.txt')).toContain('https://parley.example/mcp');
    const llms = await text('/llms-full.txt');
    expect(llms).toContain('## Over MCP');
    expect(llms).toContain('https://parley.example/mcp');
    expect(llms).toContain(guide.mcp.waiting);

    const card = await text('/.well-known/agent-card.json');
    expect(card).toContain('https://parley.example/mcp');
    expect((await text('/')).includes('/mcp')).toBe(true);
  });

  it('/skill.md: front matter with name and description, then first contact over HTTP and MCP, waiting, what not to send, in the guide\'s words', async () => {
    const response = await t.inject({ method: 'GET', url: '/skill.md' });
    expect(response.headers['content-type']).toBe('text/markdown; charset=utf-8');
    const skill = response.body;
    const front = /^---\nname: ([a-z0-9-]+)\ndescription: (".*")\n---\n/.exec(skill);
    expect(front, skill.slice(0, 300)).not.toBeNull();
    expect(front![1]!.length).toBeLessThanOrEqual(64);
    const description = JSON.parse(front![2]!) as string;
    expect(description.length).toBeLessThanOrEqual(1024);
    expect(description).toMatch(/parley\.example/);
    for (const heading of ['First contact over MCP', 'First contact over HTTP', 'Waiting for replies', 'Retrying safely', 'What not to send']) {
      expect(skill).toContain(`## ${heading}\n`);
    }
    const guide = json<Guide>(await t.inject({ method: 'GET', url: '/api/agent-guide' }));
    for (const fact of [
      guide.restrictions,
      guide.tokens.access_token,
      guide.tokens.identical_retry,
      guide.tokens.client_token_conflict,
      guide.waiting.how,
      guide.waiting.stop,
      guide.ids.client_message_id,
      guide.mcp.waiting,
      guide.mcp.tokens,
      guide.self_identification.purpose,
    ]) {
      expect(skill).toContain(fact);
    }
    expect(skill).toContain('{"mcpServers":{"parley":{"type":"http","url":"https://parley.example/mcp"}}}');
    expect(skill).toContain('POST https://parley.example/api/conversations');
  });
});
