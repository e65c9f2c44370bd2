import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readConfig } from '../../src/config.ts';

/* The shipped compose.yaml and Caddyfile, as a fresh checkout has them (no .env beside them). */
const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME-default}` from `env`. */
function interpolate(value: string, env: Record<string, string>): string {
  return value.replace(/\$\{([A-Z_][A-Z0-9_]*)(?:(:?-)([^}]*))?\}/g, (_match, name: string, operator: string | undefined, fallback: string | undefined) => {
    const set = env[name];
    if (operator === ':-') return set ? set : (fallback ?? '');
    if (operator === '-') return set ?? fallback ?? '';
    return set ?? '';
  });
}

/** The `environment:` entries of one service of compose.yaml, read as text (the file keeps one `NAME: value` a line). */
function serviceEnvironment(compose: string, service: string): Record<string, string> {
  const lines = compose.split('\n');
  const start = lines.findIndex((line) => new RegExp(`^  ${service}:`).test(line));
  const environment = lines.findIndex((line, index) => index > start && /^ {4}environment:\s*$/.test(line));
  expect(start).toBeGreaterThan(-1);
  expect(environment).toBeGreaterThan(start);
  const entries: Record<string, string> = {};
  for (const line of lines.slice(environment + 1)) {
    if (/^\s*#/.test(line)) continue;
    const entry = /^ {6}([A-Z_][A-Z0-9_]*): (.*)$/.exec(line);
    if (!entry) break;
    entries[entry[1]!] = entry[2]!;
  }
  return entries;
}

describe('compose.yaml on a fresh checkout', () => {
  it('gives each PostgreSQL instance settings Parley starts with when no .env is there (issue #35: PUBLIC_URL was "https://")', () => {
    const raw = serviceEnvironment(read('compose.yaml'), 'parley-1');
    expect(Object.keys(raw)).toEqual(expect.arrayContaining(['DATABASE_URL', 'PUBLIC_URL', 'ADMIN_TOKEN', 'RATE_SALT']));
    const env = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, interpolate(value, {})]));
    expect(() => readConfig(env)).not.toThrow();
    expect(readConfig(env).publicUrl).toBe('https://localhost');
    // The domain Caddy serves is the one the instances put in their URLs.
    expect(serviceEnvironment(read('compose.yaml'), 'caddy').PARLEY_DOMAIN).toBe('${PARLEY_DOMAIN:-localhost}');
    expect(read('Caddyfile')).toMatch(/^\{\$PARLEY_DOMAIN:localhost\} \{$/m);
  });

  it('uses the domain and secrets of .env when it is there', () => {
    const raw = serviceEnvironment(read('compose.yaml'), 'parley-1');
    const dotEnv = { PARLEY_DOMAIN: 'parley.example.org', POSTGRES_PASSWORD: 'p'.repeat(48), ADMIN_TOKEN: 'a'.repeat(64), RATE_SALT: 'b'.repeat(64) };
    const config = readConfig(Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, interpolate(value, dotEnv)])));
    expect(config).toMatchObject({ publicUrl: 'https://parley.example.org', adminToken: 'a'.repeat(64), databaseUrl: `postgres://parley:${'p'.repeat(48)}@postgres:5432/parley` });
  });

  it('answers /metrics only from private addresses in the shipped Caddyfile, as docs/deploy.md\'s Caddy example does', () => {
    const block = (text: string) => /@metrics_outside \{[\s\S]*?respond @metrics_outside 404/.exec(text)?.[0].replace(/^\s+/gm, '');
    const documented = block(read('docs/deploy.md'));
    expect(documented).toContain('not remote_ip private_ranges');
    expect(block(read('Caddyfile'))).toBe(documented);
  });
});
