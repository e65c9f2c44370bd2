import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';

/*
 * The discovery documents stay within their byte budgets, and both OpenAPI documents pass
 * Redocly's "recommended" ruleset with no error (@redocly/cli, offline). A document that grows
 * past its budget fails here: make it leaner (say a thing once, share a schema) or raise the
 * budget on purpose.
 */

/** Bytes, as served. */
const BUDGETS: Record<string, number> = {
  // 180,649 before this round: +12,400 for blocks, rotation and revocation (issue #32: 3 agent and 5 operator routes),
  // +3,000 for proof of work, +8,500 for issue #31's six operator routes (saved replies x4, bulk, notes), the notes on
  // the operator's read and body_html, +4,000 for issue #30's alert channels (the channel list, ?channel=, three push routes),
  // +2,000 for issue #31's snooze (one operator route, ?snoozed=, snoozed_until on the list and the read),
  // +600 for typical_first_reply_seconds (issue #30) on the receipt, the read and the guide,
  // +1,000 for GET /api/admin/webhooks (issue #29: the webhook events given up, for the console's warning),
  // +2,800 for issue #31's visitor panel route (/related) and the list's ?order= and ?count= with its total,
  // +700 for verified_origin (issue #32) on the operator's messages, moderator posts, bridges and peer overview.
  '/openapi.json': 216_000,
  // +5,400 for the 3 token rotation routes and the blocked/token_revoked codes, +2,200 for proof of work,
  // +100 for messages' body_html (issue #31: the contact page shows the operator's replies rendered).
  // +400 for typical_first_reply_seconds.
  '/openapi.agent.json': 68_100,
  'tools/list': 20_450,
  '/llms.txt': 5_000,
  '/llms-full.txt': 17_900,
  '/skill.md': 9_600,
  '/api/agent-guide': 18_450,
  '/.well-known/agent-card.json': 4_000,
};

let t: TestApp;
beforeAll(async () => {
  t = await startApp();
});
afterAll(() => t.close());

async function served(name: string): Promise<string> {
  if (name === 'tools/list') {
    const answer = await t.inject({
      method: 'POST',
      url: '/mcp',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    return answer.body;
  }
  return (await t.inject({ method: 'GET', url: name })).body;
}

describe('document budgets', () => {
  it.each(Object.entries(BUDGETS))('%s stays within %i bytes', async (name, budget) => {
    const body = await served(name);
    expect(body.length).toBeGreaterThan(0);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(budget);
  });
});

describe('Redocly lint, recommended rules', () => {
  it('finds no error in /openapi.json and /openapi.agent.json, and every operation has an operationId', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'parley-lint-'));
    try {
      const files = [];
      for (const name of ['/openapi.json', '/openapi.agent.json']) {
        const body = await served(name);
        const document = JSON.parse(body) as { paths: Record<string, Record<string, { operationId?: string }>> };
        for (const operations of Object.values(document.paths)) for (const operation of Object.values(operations)) expect(operation.operationId).toMatch(/^[a-zA-Z0-9]+$/);
        const file = path.join(dir, name.slice(1));
        writeFileSync(file, body);
        files.push(file);
      }
      const cli = createRequire(import.meta.url).resolve('@redocly/cli/bin/cli.js');
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      for (const file of files) {
        const run = await promisify(execFile)(process.execPath, [cli, 'lint', '--extends', 'recommended', '--format', 'json', file], { env, maxBuffer: 16 * 1024 * 1024 }).catch(
          (failed: { stdout: string }) => failed,
        );
        // The JSON report, without the notices the CLI prints around it.
        const json = run.stdout.slice(run.stdout.indexOf('{'), run.stdout.lastIndexOf('}') + 1);
        const report = JSON.parse(json) as { totals: { errors: number }; problems: Array<{ ruleId: string; severity: string; message: string }> };
        expect(report.problems.filter((problem) => problem.severity === 'error'), file).toEqual([]);
        expect(report.totals.errors, file).toBe(0);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
