import { afterEach, describe, expect, it } from 'vitest';
import { countRows, expectError, RATE_SALT, startApp, type TestApp, type TestAppOptions } from '../../helpers.ts';
import { ConfigError, readConfig } from '../../../src/config.ts';
import { keyedHash } from '../../../src/tokens.ts';
import { create } from '../support.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

// CONTRACT §5: the creation limits, per source and global.
describe('creation limits', () => {
  let t: TestApp;
  const start = async (env: Record<string, string>, options: TestAppOptions = {}) => {
    t = await startApp({ ...options, env });
  };
  afterEach(() => t.close());

  const from = (remoteAddress: string, headers: Record<string, string> = {}) =>
    create(t, { message: `from ${remoteAddress}` }, { remoteAddress, headers });

  const counters = () => t.store.db.selectFrom('limit_counters').select(['bucket', 'count']).orderBy('bucket').execute();

  it('answers 429 rate_limited with Retry-After past the per-source limit, until the window passes', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '2/1h,3/1d' });
    expect((await from('198.51.100.7')).statusCode).toBe(201);
    expect((await from('198.51.100.7')).statusCode).toBe(201);
    const refused = await from('198.51.100.7');
    expectError(refused, 429, 'rate_limited');
    expect(Number(refused.headers['retry-after'])).toBe(3600);
    expect(await countRows(t, 'conversations')).toBe(2);

    t.clock.advance(59 * MINUTE);
    const stillRefused = await from('198.51.100.7');
    expectError(stillRefused, 429, 'rate_limited');
    expect(Number(stillRefused.headers['retry-after'])).toBe(60);

    t.clock.advance(MINUTE);
    expect((await from('198.51.100.7')).statusCode).toBe(201);
    // Now the daily window (3) is the one that refuses; it lasts until midnight UTC.
    t.clock.advance(HOUR);
    const daily = await from('198.51.100.7');
    expectError(daily, 429, 'rate_limited');
    expect(Number(daily.headers['retry-after'])).toBe(10 * 3600);
    t.clock.advance(10 * HOUR);
    expect((await from('198.51.100.7')).statusCode).toBe(201);
  });

  it('answers 429 inbox_at_capacity past the global limit, whatever the source', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '100/1h', LIMIT_CONVERSATION_GLOBAL: '3/10m' });
    for (const address of ['192.0.2.1', '192.0.2.2', '192.0.2.3']) expect((await from(address)).statusCode).toBe(201);
    const refused = await from('192.0.2.4');
    expectError(refused, 429, 'inbox_at_capacity');
    expect(Number(refused.headers['retry-after'])).toBe(600);
    t.clock.advance(10 * MINUTE);
    expect((await from('192.0.2.4')).statusCode).toBe(201);
  });

  it('charges nothing for a refused request: the per-source refusal leaves the global limit, and the global refusal the source', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '2/1h', LIMIT_CONVERSATION_GLOBAL: '4/10m' });
    expect((await from('192.0.2.10')).statusCode).toBe(201);
    expect((await from('192.0.2.10')).statusCode).toBe(201);
    for (let attempt = 0; attempt < 10; attempt++) expectError(await from('192.0.2.10'), 429, 'rate_limited');
    // Ten refusals used none of the global room: two more sources fill it exactly.
    expect((await from('192.0.2.11')).statusCode).toBe(201);
    expect((await from('192.0.2.12')).statusCode).toBe(201);
    for (let attempt = 0; attempt < 10; attempt++) expectError(await from('192.0.2.13'), 429, 'inbox_at_capacity');
    // Each window's count, its shards (src/limits/shards.ts) added up.
    const windows = new Map<string, number>();
    for (const counter of await counters()) windows.set(counter.bucket.replace(/#\d+$/, ''), (windows.get(counter.bucket.replace(/#\d+$/, '')) ?? 0) + counter.count);
    expect([...windows.values()].sort()).toEqual([1, 1, 2, 4]);

    // The global window passes (the hourly source window does not): 192.0.2.13 was never charged.
    t.clock.advance(10 * MINUTE);
    expect((await from('192.0.2.13')).statusCode).toBe(201);
    expect((await from('192.0.2.13')).statusCode).toBe(201);
    expectError(await from('192.0.2.13'), 429, 'rate_limited');
  });

  it('charges nothing for an invalid request', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '1/1h' });
    for (let attempt = 0; attempt < 5; attempt++) expect((await create(t, { message: '' })).statusCode).toBe(400);
    expect(await countRows(t, 'limit_counters')).toBe(0);
    expect((await create(t, { message: 'valid' })).statusCode).toBe(201);
  });

  it('counts IPv6 sources per /64', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '1/1h' });
    expect((await from('2001:db8:1:1::1')).statusCode).toBe(201);
    expectError(await from('2001:db8:1:1:ffff:ffff:ffff:fffe'), 429, 'rate_limited');
    expectError(await from('2001:0db8:0001:0001:0000:0000:0000:0002'), 429, 'rate_limited');
    expect((await from('2001:db8:1:2::1')).statusCode).toBe(201);
    expect((await from('2001:db8:2:1::1')).statusCode).toBe(201);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '1/1h' });
    expect((await from('203.0.113.9')).statusCode).toBe(201);
    expectError(await from('::ffff:203.0.113.9'), 429, 'rate_limited');
    expect((await from('203.0.113.10')).statusCode).toBe(201);
  });

  it('stores only HMAC keys of the sources in limit_counters', async () => {
    await start({ LIMIT_CONVERSATION_SOURCE: '5/1h,10/1d' });
    const addresses = ['198.51.100.23', '2001:db8:abcd:12::7'];
    for (const address of addresses) expect((await from(address)).statusCode).toBe(201);
    const buckets = (await counters()).map((counter) => counter.bucket);
    const dump = JSON.stringify(await t.store.db.selectFrom('limit_counters').selectAll().execute());
    for (const raw of [...addresses, '198.51.100', '2001:db8:abcd:12', '2001:0db8']) expect(dump).not.toContain(raw);
    expect(buckets.some((bucket) => bucket.includes(keyedHash(RATE_SALT, '198.51.100.23')))).toBe(true);
    expect(buckets.some((bucket) => bucket.includes(keyedHash(RATE_SALT, '2001:db8:abcd:12::/64')))).toBe(true);
    expect(buckets.some((bucket) => bucket.includes('global'))).toBe(true);
    // Every per-source key is a 64-hex HMAC (then the shard's number).
    for (const bucket of buckets.filter((name) => name.startsWith('CONVERSATION_SOURCE:'))) expect(bucket).toMatch(/:[0-9a-f]{64}#\d+$/);
  });

  describe('TRUST_PROXY', () => {
    const forwarded = (forwardedFor: string) => from('127.0.0.1', { 'x-forwarded-for': forwardedFor });

    it('ignores X-Forwarded-For by default', async () => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h' });
      expect((await forwarded('203.0.113.1')).statusCode).toBe(201);
      expectError(await forwarded('203.0.113.2'), 429, 'rate_limited');
    });

    it.each(['true', '127.0.0.1', '10.0.0.0/8, 127.0.0.1/32'])('honours X-Forwarded-For from the proxy when TRUST_PROXY=%s', async (trust) => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: trust });
      expect((await forwarded('203.0.113.1')).statusCode).toBe(201);
      expect((await forwarded('203.0.113.2')).statusCode).toBe(201);
      expectError(await forwarded('203.0.113.1'), 429, 'rate_limited');
    });

    it('ignores X-Forwarded-For from a peer that is not the listed proxy', async () => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: '10.0.0.1' });
      expect((await forwarded('203.0.113.1')).statusCode).toBe(201);
      expectError(await forwarded('203.0.113.2'), 429, 'rate_limited');
    });

    it('counts the forwarded address, not a client-written one before it, behind a listed proxy', async () => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: '127.0.0.1' });
      // The proxy appends the real peer; whatever the client wrote to the left is not trusted.
      expect((await forwarded('1.1.1.1, 203.0.113.50')).statusCode).toBe(201);
      expectError(await forwarded('2.2.2.2, 203.0.113.50'), 429, 'rate_limited');
    });

    it('counts the entry the proxy appended, not client-prepended ones, when TRUST_PROXY=true', async () => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: 'true' });
      // `true` trusts the socket peer only: the last entry is the one it wrote about its own client.
      expect((await forwarded('1.1.1.1, 203.0.113.51')).statusCode).toBe(201);
      expectError(await forwarded('2.2.2.2, 203.0.113.51'), 429, 'rate_limited');
      expectError(await forwarded('3.3.3.3, 4.4.4.4, 203.0.113.51'), 429, 'rate_limited');
      expectError(await forwarded('203.0.113.51'), 429, 'rate_limited');
      expect((await forwarded('203.0.113.51, 203.0.113.52')).statusCode).toBe(201);
    });

    it('walks from the right past every listed proxy, a listed one written with a port too', async () => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: '127.0.0.1, 10.0.0.0/8' });
      expect((await forwarded('1.1.1.1, 203.0.113.60, 10.0.0.7')).statusCode).toBe(201);
      expectError(await forwarded('2.2.2.2, 203.0.113.60, 10.0.0.9:4444, 10.1.2.3'), 429, 'rate_limited');
      expectError(await forwarded('203.0.113.60'), 429, 'rate_limited');
    });

    it.each(['true', '127.0.0.1'])('counts a forwarded address written with a port as the address alone (TRUST_PROXY=%s)', async (trust) => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: trust });
      expect((await forwarded('198.51.100.9:1111')).statusCode).toBe(201);
      expectError(await forwarded('198.51.100.9'), 429, 'rate_limited');
      expectError(await forwarded('198.51.100.9:2222'), 429, 'rate_limited');
      expect((await forwarded('[2001:db8::1]:2')).statusCode).toBe(201);
      expectError(await forwarded('2001:db8::1'), 429, 'rate_limited');
      expectError(await forwarded('[2001:db8::1]'), 429, 'rate_limited');
      expectError(await forwarded('[2001:db8::1]:3'), 429, 'rate_limited');
      expect((await forwarded('[::ffff:198.51.100.10]:5')).statusCode).toBe(201);
      expectError(await forwarded('198.51.100.10:6'), 429, 'rate_limited');
    });

    it('counts forwarded IPv6 addresses per /64, with or without a port', async () => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: 'true' });
      expect((await forwarded('2001:db8:1:1::1')).statusCode).toBe(201);
      expectError(await forwarded('2001:db8:1:1:ffff:ffff:ffff:fffe'), 429, 'rate_limited');
      expectError(await forwarded('[2001:db8:1:1::abcd]:443'), 429, 'rate_limited');
      expectError(await forwarded('9.9.9.9, [2001:0db8:0001:0001::2]:8080'), 429, 'rate_limited');
      expect((await forwarded('[2001:db8:1:2::1]:443')).statusCode).toBe(201);
      expect((await forwarded('2001:db8:2:1::1')).statusCode).toBe(201);
    });

    it.each(['true', '127.0.0.1'])('counts the socket address when the forwarded entry is malformed, never answering 5xx (TRUST_PROXY=%s)', async (trust) => {
      await start({ LIMIT_CONVERSATION_SOURCE: '1/1h', TRUST_PROXY: trust });
      expect((await forwarded('garbage')).statusCode).toBe(201);
      const malformed = ['other-garbage', '999.1.1.1', '198.51.100.9:', '198.51.100.9:port', '[2001:db8::1', '2001:db8::1]:2', '[198.51.100.9]:1',
        '198.51.100.9:1:2', 'unknown', '_hidden', '1.2.3.4, x', 'fe80::1%eth-0', '"198.51.100.9"', 'for=198.51.100.9', '::1/64', `${'9'.repeat(4000)}`];
      for (const entry of malformed) expectError(await forwarded(entry), 429, 'rate_limited');
      // The socket itself (127.0.0.1) is that same source.
      expectError(await from('127.0.0.1'), 429, 'rate_limited');
    });
  });
});

describe('TRUST_PROXY parsing', () => {
  it('refuses a proxy address with a zone id, naming the variable', () => {
    // Fastify's proxy-addr could not parse it and the start ended in a stack trace.
    expect(() => readConfig({ TRUST_PROXY: '127.0.0.1, fe80::1%eth-0' })).toThrow(new ConfigError('TRUST_PROXY', '"fe80::1%eth-0" is not true, false, an address or a CIDR'));
  });
});
