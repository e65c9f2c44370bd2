import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from './run-cli.ts';

const { version } = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

describe('parley (the command line)', () => {
  it('prints the version with --version and exits 0', async () => {
    const run = await runCli(['--version']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout.trim()).toBe(version);
  });

  it('lists every command with --help and exits 0', async () => {
    const run = await runCli(['--help']);
    expect(run.code).toBe(0);
    for (const command of ['serve', 'backup <file>', 'restore <file>', 'migrate', 'token']) expect(run.stdout).toContain(command);
    const token = await runCli(['token', '--help']);
    expect(token.code).toBe(0);
    expect(token.stdout).toContain('rotate');
  });

  it.each([
    ['an unknown command', ['nope'], /unknown command 'nope'/],
    ['a missing argument', ['backup'], /missing required argument 'file'/],
    ['an extra argument', ['migrate', 'now'], /too many arguments/],
    ['an unknown option', ['serve', '--port=1'], /unknown option '--port=1'/],
  ])('exits 2 on %s, saying what is wrong', async (_case, args, message) => {
    const run = await runCli(args);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(message);
    expect(run.stdout).toBe('');
  });
});
