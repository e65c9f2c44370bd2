import { randomUUID } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, type TestApp } from '../helpers.ts';
import { call, listening, mcpClient, refused } from '../mcp/support.ts';
import { solve, type IssuedChallenge } from './solve.ts';

/** CHALLENGE_MODE=always holds on every way in to first contact and registration: MCP, A2A and the compat clients' shared routes. */
describe('proof of work has no bypass', () => {
  let t: TestApp;
  let base: string;
  let client: Client;
  beforeAll(async () => {
    ({ t, base } = await listening({ CHALLENGE_MODE: 'always' }));
    client = await mcpClient(`${base}/mcp`);
  });
  afterAll(async () => {
    await client.close();
    await t.close();
  });

  it('MCP start_conversation and register_agent: a tool error with the challenge and what to do; solved, the call succeeds', async () => {
    for (const [tool, args] of [
      ['start_conversation', { message: 'Hello from MCP' }],
      ['register_agent', { display_name: 'MCP solver' }],
    ] as const) {
      const before = await countRows(t, 'conversations');
      const error = (await refused(client, tool, args)) as Awaited<ReturnType<typeof refused>> & { challenge: IssuedChallenge };
      expect(error).toMatchObject({ code: 'challenge_required', status: 428 });
      expect(error.what_to_do).toMatch(/challenge_solution/);
      expect(await countRows(t, 'conversations')).toBe(before);
      const done = await call(client, tool, { ...args, challenge_solution: solve(error.challenge) });
      expect(done).toHaveProperty('access_token');
    }
  });

  it('A2A SendMessage: answered 428 with the code and the challenge in the error metadata; solved, the task starts', async () => {
    const send = (headers: Record<string, string> = {}) =>
      fetch(`${base}/api/a2a`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'a2a-version': '1.0', ...headers },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text: 'Hello over A2A' }] } } }),
      });
    const asked = await send();
    expect(asked.status).toBe(428);
    const metadata = ((await asked.json()) as { error: { data: Array<{ metadata: Record<string, string> }> } }).error.data[0]!.metadata;
    expect(metadata.code).toBe('challenge_required');
    const solved = await send({ 'x-challenge-solution': solve(JSON.parse(metadata.challenge!) as IssuedChallenge) });
    expect(solved.status).toBe(200);
    expect(JSON.stringify(await solved.json())).toMatch(/"TASK_STATE_/);
  });
});
