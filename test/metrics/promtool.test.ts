import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConversation, startApp, type TestApp } from '../helpers.ts';
import { scrape } from './exposition.ts';

/** Debian's prometheus package ships it; the rule checks below run without it. */
const PROMTOOL = '/usr/bin/promtool';

/** The exposition's metric families: each `# HELP`/`# TYPE` header with its sample lines. */
function families(text: string): { name: string; type: string; lines: string[] }[] {
  const found: { name: string; type: string; lines: string[] }[] = [];
  for (const line of text.split('\n')) {
    const help = /^# HELP (\S+) /.exec(line);
    if (help) found.push({ name: help[1]!, type: '', lines: [] });
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type && found.at(-1)?.name === type[1]) found.at(-1)!.type = type[2]!;
    if (line !== '') found.at(-1)?.lines.push(line);
  }
  return found;
}

describe('the exposition format of Parley\'s own metrics', () => {
  let t: TestApp;
  let own: ReturnType<typeof families>;
  beforeAll(async () => {
    t = await startApp();
    await createConversation(t);
    own = families((await scrape(t)).text).filter((family) => family.name.startsWith('parley_'));
  });
  afterAll(() => t.close());

  it('types what counts since start as a counter named _total, and nothing else _total', () => {
    expect(own.map((family) => family.name)).toEqual(expect.arrayContaining(['parley_store_write_batches_total', 'parley_store_write_commands_total']));
    for (const family of own) {
      expect(family.type, family.name).toMatch(/^(counter|gauge|histogram)$/);
      expect(family.name.endsWith('_total'), family.name).toBe(family.type === 'counter');
    }
  });

  it.runIf(existsSync(PROMTOOL))('passes promtool check metrics with no finding', () => {
    const checked = spawnSync(PROMTOOL, ['check', 'metrics'], { input: `${own.flatMap((family) => family.lines).join('\n')}\n`, encoding: 'utf8' });
    expect(checked.stdout + checked.stderr).toBe('');
    expect(checked.status).toBe(0);
  });
});
