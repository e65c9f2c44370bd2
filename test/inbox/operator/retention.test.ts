import { afterEach, describe, expect, it, vi } from 'vitest';
import { RetentionJob } from '../../../src/inbox/operator/retention.ts';
import { ConfigError, readConfig } from '../../../src/config.ts';
import { Limiter } from '../../../src/limits/limiter.ts';
import { bearer, createConversation, type TestApp } from '../../helpers.ts';
import { admin, listAll, overview, startRoomyApp } from '../support.ts';

const DAY = 86_400_000;
const quiet = { info: () => undefined, warn: () => undefined };
/** For the tests of what a run deletes: no share is too large. */
const UNGUARDED = { maxSharePercent: 100, allowLargeDelete: false };

describe('retention', () => {
  let t: TestApp;
  afterEach(() => t.close());

  function job(retentionDays: number) {
    return new RetentionJob({ services: t.app.services, limiter: new Limiter(t.config.limits, t.clock), clock: t.clock, retentionDays, ...UNGUARDED, logger: quiet });
  }

  /** A job as the service builds it from its configuration, with its warnings captured. */
  function configuredJob(warnings: [object, string][]) {
    return new RetentionJob({
      services: t.app.services,
      limiter: new Limiter(t.config.limits, t.clock),
      clock: t.clock,
      retentionDays: t.config.retentionDays,
      maxSharePercent: t.config.retentionMaxShare,
      allowLargeDelete: t.config.retentionAllowLargeDelete,
      logger: { info: () => undefined, warn: (details, message) => warnings.push([details, message]) },
    });
  }

  it('deletes a normal share, but nothing when a clock far ahead makes most conversations due, and says so with counts only', async () => {
    t = await startRoomyApp({ env: { RETENTION_DAYS: '30' } });
    expect(t.config).toMatchObject({ retentionMaxShare: 25, retentionAllowLargeDelete: false });
    const old = [await createConversation(t), await createConversation(t)];
    t.clock.advance(20 * DAY);
    for (let index = 0; index < 6; index += 1) await createConversation(t, { message: `recent ${index}` });
    t.clock.advance(11 * DAY);
    const warnings: [object, string][] = [];

    // 2 of 8 due: exactly the share, so the run goes ahead as before.
    expect((await configuredJob(warnings).run()).conversations).toBe(2);
    expect(warnings).toEqual([]);
    const remaining = (await listAll(t)).map((item) => item.id);
    expect(remaining).toHaveLength(6);

    // The clock jumps ten years ahead: all 6 would be due.
    t.clock.advance(3650 * DAY);
    expect((await configuredJob(warnings).run()).conversations).toBe(0);
    expect((await listAll(t)).map((item) => item.id)).toEqual(remaining);
    expect((await overview(t)).totals.total_conversations).toBe(6);
    expect(warnings).toEqual([[{ conversations: 6, max_deletable: 1, max_share_percent: 25 }, expect.stringContaining('retention deleted nothing')]]);
    expect(JSON.stringify(warnings)).not.toMatch(new RegExp([...old.map((item) => item.conversation_id), ...remaining].join('|')));
    // And again on the next run: the refusal holds until someone decides.
    expect((await configuredJob(warnings).run()).conversations).toBe(0);
    expect(warnings).toHaveLength(2);
  });

  it('deletes more than RETENTION_MAX_SHARE when RETENTION_ALLOW_LARGE_DELETE=true, and logs it', async () => {
    t = await startRoomyApp({ env: { RETENTION_DAYS: '30', RETENTION_MAX_SHARE: '50', RETENTION_ALLOW_LARGE_DELETE: 'true' } });
    for (let index = 0; index < 4; index += 1) await createConversation(t, { message: `old ${index}` });
    t.clock.advance(31 * DAY);
    await createConversation(t, { message: 'recent' });
    const warnings: [object, string][] = [];
    expect((await configuredJob(warnings).run()).conversations).toBe(4);
    expect(await listAll(t)).toHaveLength(1);
    expect(warnings).toEqual([[{ conversations: 5, max_deletable: 2, max_share_percent: 50 }, expect.stringContaining('RETENTION_ALLOW_LARGE_DELETE')]]);
  });

  it('deletes conversations inactive longer than RETENTION_DAYS and keeps the counters exact', async () => {
    t = await startRoomyApp({ env: { RETENTION_DAYS: '30' } });
    expect(t.config.retentionDays).toBe(30);
    const stale = await createConversation(t, { message: 'Old', invitation_id: 'inv' });
    const revived = await createConversation(t, { message: 'Old but answered later', invitation_id: 'inv' });
    await admin(t, 'POST', `/api/admin/conversations/${stale.conversation_id}/status`, { status: 'spam' });
    await admin(t, 'POST', `/api/admin/conversations/${stale.conversation_id}/review`, { label: 'transport_test', note: '' });
    t.clock.advance(20 * DAY);
    await t.inject({ method: 'POST', url: `/api/conversations/${revived.conversation_id}/messages`, headers: bearer(revived.access_token), payload: { message: 'Still here' } });
    t.clock.advance(11 * DAY);
    const fresh = await createConversation(t, { message: 'New' });

    const result = await job(30).run();
    expect(result.conversations).toBe(1);

    expect((await t.inject({ method: 'GET', url: `/api/conversations/${stale.conversation_id}`, headers: bearer(stale.access_token) })).statusCode).toBe(404);
    const remaining = await listAll(t);
    expect(remaining.map((item) => item.id).sort()).toEqual([revived.conversation_id, fresh.conversation_id].sort());
    const counts = await overview(t);
    expect(counts.totals).toEqual({ total_conversations: 2, unread_threads: 2, open: 2, closed: 0, spam: 0, spam_threads: 0, new_last_24h: 1, active_blocks: 0 });
    expect(Object.fromEntries(counts.labels.map((entry) => [entry.label, entry.count]))).toMatchObject({ unreviewed: 2, transport_test: 0 });
    expect(counts.invitation_ids).toEqual([{ id: 'inv', count: 1 }]);
    const orphans = await t.store.db.selectFrom('messages').select('id').where('conversation_id', '=', stale.conversation_id).execute();
    expect(orphans).toEqual([]);

    // Nothing more to do until time passes.
    expect((await job(30).run()).conversations).toBe(0);
    t.clock.advance(31 * DAY);
    expect((await job(30).run()).conversations).toBe(2);
    expect((await overview(t)).totals).toMatchObject({ total_conversations: 0, unread_threads: 0, open: 0 });
  });

  it('keeps everything with RETENTION_DAYS=0 but still forgets expired limit counters', async () => {
    t = await startRoomyApp();
    expect(t.config.retentionDays).toBe(0);
    await createConversation(t);
    await t.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer('wrong') });
    const counters = async () => (await t.store.db.selectFrom('limit_counters').select('bucket').execute()).length;
    const before = await counters();
    expect(before).toBeGreaterThan(0);

    expect(await job(0).run()).toEqual({ conversations: 0, limitCounters: 0, otherCounters: 0 });
    t.clock.advance(400 * DAY);
    expect(await job(0).run()).toEqual({ conversations: 0, limitCounters: before, otherCounters: 0 });
    expect(await counters()).toBe(0);
    expect(await listAll(t)).toHaveLength(1);
  });

  it('gives exact counters when runs race (as on several instances)', async () => {
    t = await startRoomyApp();
    for (let index = 0; index < 30; index += 1) await createConversation(t, { message: `m${index}`, invitation_id: `inv-${index % 3}` });
    t.clock.advance(8 * DAY);
    await createConversation(t, { message: 'keep' });
    const results = await Promise.all([job(7).run(), job(7).run(), job(7).run()]);
    expect(results.reduce((sum, result) => sum + result.conversations, 0)).toBe(30);
    const counts = await overview(t);
    expect(counts.totals).toMatchObject({ total_conversations: 1, unread_threads: 1, open: 1, new_last_24h: 1 });
    expect(counts.invitation_ids).toEqual([]);
  });

  it('works through more stale conversations than one batch', async () => {
    t = await startRoomyApp();
    const rows = Array.from({ length: 450 }, (_, index) => ({
      id: `01900000-0000-7000-8000-${String(index).padStart(12, '0')}`,
      token_hash: `hash-${index}`,
      fingerprint: 'f',
      name: 'Seeded',
      invitation_id: null,
      status: 'closed',
      review_label: 'unreviewed',
      operator_note: '',
      created_at: index,
      updated_at: index,
      last_message_at: index,
      message_count: 0,
      unread_count: 0,
      revision: 1,
    }));
    await t.store.db.insertInto('conversations').values(rows).execute();
    await t.store.db
      .insertInto('inbox_counters')
      .values([
        { name: 'conversations', value: 450 },
        { name: 'status:closed', value: 450 },
        { name: 'label:unreviewed', value: 450 },
      ])
      .execute();
    expect((await job(1).run()).conversations).toBe(450);
    expect((await overview(t)).totals).toMatchObject({ total_conversations: 0, closed: 0 });
  });

  it('runs from its timer, unref\'d, and stops', async () => {
    t = await startRoomyApp();
    t.clock.advance(1);
    await t.inject({ method: 'GET', url: '/api/admin/overview', headers: bearer('wrong') });
    t.clock.advance(400 * DAY);
    const retention = new RetentionJob({
      services: t.app.services,
      limiter: new Limiter(t.config.limits, t.clock),
      clock: t.clock,
      retentionDays: 0,
      ...UNGUARDED,
      logger: quiet,
      intervalMs: 20,
    });
    retention.start();
    await vi.waitFor(async () => expect(await t.store.db.selectFrom('limit_counters').select('bucket').execute()).toEqual([]), { timeout: 10_000, interval: 10 });
    await retention.stop();
    expect(await t.store.db.selectFrom('limit_counters').select('bucket').execute()).toEqual([]);
  });
});

describe('retention configuration', () => {
  it.each([
    ['RETENTION_MAX_SHARE', '0'],
    ['RETENTION_MAX_SHARE', '101'],
    ['RETENTION_MAX_SHARE', 'a quarter'],
    ['RETENTION_ALLOW_LARGE_DELETE', 'yes'],
  ])('refuses %s=%j with a ConfigError naming the variable', (variable, value) => {
    expect(() => readConfig({ [variable]: value })).toThrow(ConfigError);
    expect(() => readConfig({ [variable]: value })).toThrow(new RegExp(`^${variable}:`));
  });
});
