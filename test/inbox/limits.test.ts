import { afterEach, describe, expect, it } from 'vitest';
import { RATE_SALT, startApp, type TestApp, type TestAppOptions } from '../helpers.ts';
import { keyedHash } from '../../src/tokens.ts';
import { countRows, create, expectError } from './fixtures.ts';

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
    expect((await counters()).map((counter) => counter.count).sort()).toEqual([1, 1, 2, 4]);

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
    // Every per-source key is a 64-hex HMAC.
    for (const bucket of buckets.filter((name) => name.startsWith('CONVERSATION_SOURCE:'))) expect(bucket).toMatch(/:[0-9a-f]{64}:\d+$/);
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
  });
});
