import { describe, expect, it } from 'vitest';
import type { Measurement } from '../../bench/load.ts';
import { formatTable, scaleVerdicts, targetVerdicts, type Row } from '../../bench/report.ts';

function measured(key: string, requestsPerSecond: number, extra: Partial<Measurement> = {}): Measurement {
  return {
    key,
    label: key.replaceAll('_', ' '),
    requestsPerSecond,
    p50Ms: 2,
    p99Ms: 9,
    unexpected: 0,
    errors: 0,
    total: requestsPerSecond * 10,
    seconds: 10,
    statusCounts: { 200: requestsPerSecond * 10 },
    cpuUsPerRequest: 100,
    eventLoopBusy: 0.873,
    halfRate: { rate: requestsPerSecond / 2, requestsPerSecond: requestsPerSecond / 2, p50Ms: 1, p99Ms: 4, unexpected: 0, errors: 0, notSent: 0, sendDelayP99Ms: 1, ioStallMs: null, total: 1, seconds: 10, statusCounts: {}, cpuUsPerRequest: 120, eventLoopBusy: 0.4 },
    ...extra,
  };
}

const BASELINE = 10_000;
const row = (measurement: Measurement): Row => ({ measurement, ratio: measurement.requestsPerSecond / BASELINE });

describe('bench target verdicts', () => {
  it('checks the SQLite targets, each with its p99 at half the peak rate', () => {
    const rows = [
      row(measured('followup_write', 3_000)),
      row(measured('conversation_create', 1_000)),
      row(measured('visitor_read', 6_000, { halfRate: null })),
      { key: 'operator_list', label: 'operator list', reason: 'operator routes not available' },
    ];
    const verdicts = targetVerdicts(rows, 'sqlite');
    const byName = Object.fromEntries(verdicts.map((verdict) => [`${verdict.kind} ${verdict.name}`, verdict]));
    expect(byName['ratio follow-up (visitor reply), SQLite']).toMatchObject({ threshold: 0.25, value: 0.3, met: true });
    expect(byName['p99_at_half_rate follow-up (visitor reply), SQLite, p99 at half the peak rate']).toMatchObject({ threshold: 10, value: 4, met: true });
    expect(byName['ratio conversation creation, SQLite']).toMatchObject({ threshold: 0.2, value: 0.1, met: false });
    expect(byName['ratio visitor read (10 messages)']).toMatchObject({ threshold: 0.5, met: true });
    expect(byName['p99_at_half_rate visitor read (10 messages), p99 at half the peak rate']).toMatchObject({ met: null });
    expect(byName['ratio operator list, first page of 100']).toMatchObject({ threshold: 0.3, met: null });
    expect(byName['ratio operator list, first page of 100']!.line).toContain('operator routes not available');
    expect(verdicts.some((verdict) => verdict.name.includes('PostgreSQL'))).toBe(false);
  });

  it('sets the PostgreSQL follow-up target on a PostgreSQL run and no creation target', () => {
    const rows = [row(measured('followup_write', 1_200)), row(measured('conversation_create', 5_000))];
    const verdicts = targetVerdicts(rows, 'postgres');
    expect(verdicts.find((verdict) => verdict.kind === 'ratio' && verdict.key === 'followup_write')).toMatchObject({
      name: 'follow-up on PostgreSQL, one instance',
      threshold: 0.1,
      met: true,
    });
    expect(verdicts.some((verdict) => verdict.key === 'conversation_create')).toBe(false);
  });

  it('fails a target whose requests failed, and a p99 at half rate of 10 ms or more', () => {
    const failing = measured('visitor_read', 9_000, { unexpected: 3 });
    failing.halfRate = { ...failing.halfRate!, p99Ms: 10 };
    const [ratio, latency] = targetVerdicts([row(failing)], 'sqlite').filter((verdict) => verdict.key === 'visitor_read');
    expect(ratio).toMatchObject({ met: false });
    expect(ratio!.line).toContain('3 requests failed');
    expect(latency).toMatchObject({ met: false, value: 10 });
  });

  it('fails the latency target when the half-rate run could not send every request', () => {
    const starved = measured('operator_list', 5_000);
    starved.halfRate = { ...starved.halfRate!, notSent: 12 };
    const latency = targetVerdicts([row(starved)], 'sqlite').find((verdict) => verdict.kind === 'p99_at_half_rate' && verdict.key === 'operator_list');
    expect(latency).toMatchObject({ met: false });
    expect(latency!.line).toContain('12 requests failed');
  });
});

describe('bench scale verdicts', () => {
  it('compares the mean rate of the rounds at the larger store with the smaller one, within 10%', () => {
    const rows = [
      row(measured('visitor_read@100000', 8_000)),
      row(measured('visitor_read@1000000', 7_400, { cpuUsPerRequest: 110 })),
      row(measured('visitor_read@100000#2', 6_000)),
      row(measured('visitor_read@1000000#2', 5_550, { cpuUsPerRequest: 110 })),
      row(measured('followup_write@100000', 3_000)),
      row(measured('followup_write@1000000', 2_600)),
      row(measured('followup_write@100000#2', 3_000)),
      row(measured('followup_write@1000000#2', 2_600)),
      row(measured('operator_list', 5_000)),
      row(measured('operator_list@1000000', 5_000)),
      row(measured('operator_list@100000#2', 5_000)),
    ];
    const { verdicts, figures } = scaleVerdicts(
      rows,
      [
        { name: 'visitor read', baseKeys: ['visitor_read@100000', 'visitor_read@100000#2'], scaleKeys: ['visitor_read@1000000', 'visitor_read@1000000#2'] },
        { name: 'follow-up', baseKeys: ['followup_write@100000', 'followup_write@100000#2'], scaleKeys: ['followup_write@1000000', 'followup_write@1000000#2'] },
        { name: 'operator list', baseKeys: ['operator_list', 'operator_list@100000#2'], scaleKeys: ['operator_list@1000000', 'operator_list@1000000#2'] },
      ],
      '1,000,000 against 100,000 stored',
    );
    expect(verdicts.map((verdict) => verdict.met)).toEqual([true, false, null]);
    expect(figures[0]).toMatchObject({ rate_ratio: 0.925, round_rate_ratios: [0.925, 0.925], cpu_ratio: 1.1 });
    expect(verdicts[1]!.line).toContain('NOT MET (rate x0.87 (rounds x0.87, x0.87)');
    expect(verdicts[2]!.line).toContain('not checked (not measured in every round at both sizes)');
  });

  it('fails a comparison when any round of either size had failed requests', () => {
    const rows = [
      row(measured('overview@100000', 9_000)),
      row(measured('overview@1000000', 9_000, { unexpected: 2 })),
    ];
    const { verdicts } = scaleVerdicts(rows, [{ name: 'overview', baseKeys: ['overview@100000'], scaleKeys: ['overview@1000000'] }], 'sizes');
    expect(verdicts[0]).toMatchObject({ met: false, value: 1 });
    expect(verdicts[0]!.line).toContain('2 requests failed');
  });
});

describe('bench table', () => {
  it('prints the CPU, event-loop and half-rate columns (with the generator\'s send delay), a dash where there is no figure, and the reason of an unmeasured route', () => {
    const table = formatTable([
      row(measured('visitor_read', 6_000)),
      row(measured('health', 9_000, { halfRate: null, cpuUsPerRequest: null, eventLoopBusy: null })),
      { key: 'operator_read', label: 'operator read', reason: 'operator routes not available' },
    ]);
    const [header, , read, health, operator] = table.split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'ratio', 'CPU us/req', 'loop busy %', 'p50@half ms', 'p99@half ms', 'send p99@half ms']);
    expect(read!.split(/\s+/).slice(-7)).toEqual(['0', '0.60', '100', '87', '1.0', '4.0', '1.0']);
    expect(health!.split(/\s+/).slice(-5)).toEqual(['-', '-', '-', '-', '-']);
    expect(operator).toMatch(/^operator read\s+operator routes not available$/);
  });
});
