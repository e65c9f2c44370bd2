import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/load.ts';
import type { PgbenchResult } from '../../bench/pgbench.ts';
import type { Row, Verdict } from '../../bench/report.ts';
import { ceilingVerdicts, formatCeilings, type CeilingInputs } from '../../bench/targets.ts';

function measured(key: string, requestsPerSecond: number, extra: Partial<Measurement> = {}): Row {
  const measurement: Measurement = {
    key,
    label: key.replaceAll('_', ' '),
    requestsPerSecond,
    p50Ms: 20,
    p99Ms: 60,
    unexpected: 0,
    errors: 0,
    total: requestsPerSecond * 5,
    seconds: 5,
    statusCounts: {},
    cpuUsPerRequest: 300,
    eventLoopBusy: 0.9,
    halfRate: { rate: requestsPerSecond / 2, requestsPerSecond: requestsPerSecond / 2, p50Ms: 4, p99Ms: 12, unexpected: 0, errors: 0, notSent: 0, sendDelayP99Ms: 1.5, ioStallMs: 240, total: 1, seconds: 5, statusCounts: {}, cpuUsPerRequest: 320, eventLoopBusy: 0.5 },
    ...extra,
  };
  return { measurement, ratio: requestsPerSecond / 10_000 };
}

const pgbench = (script: PgbenchResult['script'], limitRows: PgbenchResult['limitRows'], tps: number | null, problem: string | null = null, clients = 50): PgbenchResult => ({
  script,
  limitRows,
  clients,
  seconds: 5,
  tps,
  processed: tps === null ? 0 : tps * 5,
  failed: 0,
  latencyMs: 20,
  problem,
});

const byTarget = (inputs: CeilingInputs) => Object.fromEntries(ceilingVerdicts(inputs).map((verdict) => [`${verdict.kind} ${verdict.name}`, verdict]));

describe('issue #34 verdicts on SQLite', () => {
  const inputs = (rows: Row[]): CeilingInputs => ({ store: 'sqlite', rows, pgbench: [], waits: { one: null, two: null }, pinned: false });

  it('holds the follow-up to 0.8 of the ceiling, and each write to a p99 under 15 ms at half rate with the send delay beside it', () => {
    const verdicts = byTarget(inputs([measured('followup_write', 1_700), measured('conversation_create', 1_500), measured('sqlite_ceiling_followup', 2_000)]));
    expect(verdicts['ceiling 3, SQLite follow-up']).toMatchObject({ threshold: 0.8, value: 0.85, met: true });
    expect(verdicts['ceiling 3, SQLite follow-up']!.line).toBe('#34 target 3, SQLite follow-up >= 0.8 of the durable-write ceiling: MET (0.85: 1,700 req/s against 2,000).');
    expect(verdicts['p99_at_half_rate 4, SQLite follow-up']).toMatchObject({ threshold: 15, value: 12, met: true });
    expect(verdicts['p99_at_half_rate 4, SQLite follow-up']!.line).toContain("the generator's p99 send delay 1.5 ms");
    expect(verdicts['p99_at_half_rate 4, SQLite follow-up']!.line).toContain('the machine stalled on its disk 240 ms in the window');
    expect(verdicts['ceiling 1, PostgreSQL follow-up and creation']).toMatchObject({ met: null, value: null });
    expect(verdicts['ceiling 1, PostgreSQL follow-up and creation']!.line).toContain('not checked (run with --store postgres)');
    expect(verdicts['scale 5, PostgreSQL at scale']).toMatchObject({ met: null });
    expect(verdicts['scale 5, PostgreSQL at scale']!.line).toContain('not checked (run with --store postgres)');
  });

  it('fails below 0.8, with failed requests, or at a p99 of 15 ms; and checks nothing against a ceiling whose requests failed', () => {
    const slow = measured('followup_write', 1_500);
    (slow as { measurement: Measurement }).measurement.halfRate!.p99Ms = 15;
    let verdicts = byTarget(inputs([slow, measured('sqlite_ceiling_followup', 2_000)]));
    expect(verdicts['ceiling 3, SQLite follow-up']).toMatchObject({ value: 0.75, met: false });
    expect(verdicts['p99_at_half_rate 4, SQLite follow-up']).toMatchObject({ met: false });
    expect(verdicts['p99_at_half_rate 4, SQLite creation']!.line).toContain('not checked (no half-rate run)');

    verdicts = byTarget(inputs([measured('followup_write', 1_900, { unexpected: 4 }), measured('sqlite_ceiling_followup', 2_000)]));
    expect(verdicts['ceiling 3, SQLite follow-up']).toMatchObject({ met: false });
    expect(verdicts['ceiling 3, SQLite follow-up']!.line).toContain('4 requests failed');

    verdicts = byTarget(inputs([measured('followup_write', 1_900), measured('sqlite_ceiling_followup', 2_000, { errors: 7 })]));
    expect(verdicts['ceiling 3, SQLite follow-up']).toMatchObject({ met: null, value: null });
    expect(verdicts['ceiling 3, SQLite follow-up']!.line).toContain("the ceiling's 7 requests failed");
  });
});

describe('issue #34 verdicts on PostgreSQL', () => {
  const rows = [measured('followup_write', 1_300, { cpuUsPerRequest: 420 }), measured('conversation_create', 500, { cpuUsPerRequest: 900 }), measured('followup_write_2_instances', 1_560)];
  const inputs = (results: PgbenchResult[], extra: Partial<CeilingInputs> = {}): CeilingInputs => ({
    store: 'postgres',
    rows,
    pgbench: results,
    waits: { one: { samples: 50, lockWaitsPerSample: 7.25, ungrantedLocksPerSample: 7, top: [{ event: 'active Lock:transactionid', perSample: 7.25 }] }, two: null },
    pinned: true,
    ...extra,
  });

  it('compares each write with the faster pgbench run with limit rows per client, and checks CPU per write', () => {
    const verdicts = byTarget(
      inputs([
        pgbench('follow-up', 'per client', 1_800, null, 10),
        pgbench('follow-up', 'per client', 2_000),
        pgbench('follow-up', 'shared', 400),
        pgbench('creation', 'per client', 1_000, null, 10),
        pgbench('creation', 'per client', 250),
        pgbench('creation', 'shared', 300),
      ]),
    );
    expect(verdicts['ceiling 1, PostgreSQL follow-up']).toMatchObject({ threshold: 0.6, value: 0.65, met: true });
    expect(verdicts['ceiling 1, PostgreSQL creation']).toMatchObject({ value: 0.5, met: false });
    expect(verdicts['ceiling 1, PostgreSQL creation']!.line).toContain('10 clients, the faster run');
    expect(verdicts['cpu_per_write 1, PostgreSQL follow-up']).toMatchObject({ threshold: 450, value: 420, met: true });
    expect(verdicts['cpu_per_write 1, PostgreSQL creation']).toMatchObject({ value: 900, met: false });
    expect(verdicts['two_instances 2, PostgreSQL']).toMatchObject({ value: 1.2, met: true });
    expect(verdicts['two_instances 2, PostgreSQL']!.line).toContain('each on one CPU');
    expect(verdicts['two_instances 2, PostgreSQL']!.line).toContain('lock waits not sampled');
    expect(verdicts['p99_at_half_rate 4, PostgreSQL follow-up']).toMatchObject({ value: 12, met: null });
    expect(verdicts['p99_at_half_rate 4, PostgreSQL follow-up']!.line).toContain('reported');
    expect(verdicts['ceiling 3, SQLite follow-up']!.line).toContain('not checked (run with --store sqlite)');
  });

  it('checks nothing against a pgbench run that failed or wrote less than it counted, or without pgbench', () => {
    let verdicts = byTarget(inputs([pgbench('follow-up', 'per client', 2_000, 'pgbench counted 10 follow-ups, the rows show 9 messages and 9 slots claimed'), pgbench('creation', 'per client', null, 'pgbench failed: boom')]));
    expect(verdicts['ceiling 1, PostgreSQL follow-up']).toMatchObject({ met: null, value: null });
    expect(verdicts['ceiling 1, PostgreSQL follow-up']!.line).toContain('the rows show 9 messages');
    expect(verdicts['ceiling 1, PostgreSQL creation']!.line).toContain('pgbench failed: boom');

    verdicts = byTarget(inputs([], { pgbenchMissing: 'pgbench is not on the PATH' }));
    expect(verdicts['ceiling 1, PostgreSQL follow-up']!.line).toContain('not checked (pgbench is not on the PATH)');
  });

  it('does not count two instances as adding throughput while their writes queue on a row lock', () => {
    const queued = { samples: 40, lockWaitsPerSample: 16.3, ungrantedLocksPerSample: 15.5, top: [] };
    const verdicts = byTarget(inputs([], { waits: { one: null, two: queued } }));
    expect(verdicts['two_instances 2, PostgreSQL']).toMatchObject({ value: 1.2, met: false });
    expect(verdicts['two_instances 2, PostgreSQL']!.line).toContain('16.30 sessions waiting on a lock per sample');
    const calm = byTarget(inputs([], { waits: { one: null, two: { ...queued, lockWaitsPerSample: 0.4 } } }));
    expect(calm['two_instances 2, PostgreSQL']).toMatchObject({ met: true });
  });

  it('does not count two instances as adding throughput when they reach no more than one', () => {
    const flat = [measured('followup_write', 1_300), measured('followup_write_2_instances', 1_300)];
    const verdicts = byTarget(inputs([], { rows: flat, pinned: false }));
    expect(verdicts['two_instances 2, PostgreSQL']).toMatchObject({ value: 1, met: false });
    expect(verdicts['two_instances 2, PostgreSQL']!.line).toContain('not pinned');
  });

  it('holds target 5 to every compared row of the scale comparison, and checks nothing without one', () => {
    const scale = (name: string, value: number | null): Verdict => ({ kind: 'scale', name, key: `${name}@1000000`, threshold: 0.9, value, met: value === null ? null : value >= 0.9, line: '' });
    let verdicts = byTarget(inputs([], { scale: [scale('overview', 0.98), scale('follow-up', 0.93)] }));
    expect(verdicts['scale 5, PostgreSQL at scale']).toMatchObject({ value: 0.93, met: true });
    verdicts = byTarget(inputs([], { scale: [scale('overview', 0.98), scale('operator read', 0.7), scale('follow-up', 0.93)] }));
    expect(verdicts['scale 5, PostgreSQL at scale']).toMatchObject({ value: 0.7, met: false });
    expect(verdicts['scale 5, PostgreSQL at scale']!.line).toContain('not met: operator read');
    verdicts = byTarget(inputs([], { scale: [scale('overview', 0.98), scale('follow-up', null)] }));
    expect(verdicts['scale 5, PostgreSQL at scale']).toMatchObject({ value: null, met: null });
    expect(verdicts['scale 5, PostgreSQL at scale']!.line).toContain('follow-up not measured at both sizes');
    verdicts = byTarget(inputs([]));
    expect(verdicts['scale 5, PostgreSQL at scale']!.line).toContain('not checked (run with --scale)');
  });

  it('prints each pgbench run and the lock waits among the ceiling rows', () => {
    const lines = formatCeilings(inputs([pgbench('follow-up', 'per client', 2_000), pgbench('creation', 'shared', null, 'pgbench failed: boom')]));
    expect(lines[0]).toContain('pgbench follow-up.sql, limit rows per client (50 clients, 5 s, prepared, pipelined, synchronous_commit=on): 2,000 tps');
    expect(lines[1]).toContain('failed; pgbench failed: boom');
    expect(lines[2]).toContain("follow-up's peak, one instance: 7.25 sessions waiting on a lock");
    expect(lines).toHaveLength(3);
  });
});
