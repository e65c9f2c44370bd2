import type { Measurement } from './load.ts';

export type Row = { measurement: Measurement; ratio: number } | { key: string; label: string; reason: string };

/** The speed budgets of DEVELOPERS.md, as ratios to the bare Fastify route. */
export const TARGETS = [
  { name: 'visitor read', key: 'visitor_read', threshold: 0.5 },
  { name: 'follow-up write', key: 'followup_write', threshold: 0.25 },
  { name: 'operator list (first page)', key: 'operator_list', threshold: 0.4 },
  { name: 'operator list (later page)', key: 'operator_list_later', threshold: 0.4 },
] as const;

export interface Verdict {
  name: string;
  key: string;
  threshold: number;
  ratio: number | null;
  met: boolean | null;
  line: string;
}

export function targetVerdicts(rows: Row[]): Verdict[] {
  return TARGETS.map(({ name, key, threshold }) => {
    const row = rows.find((candidate) => ('measurement' in candidate ? candidate.measurement.key : candidate.key) === key);
    if (!row || !('measurement' in row)) {
      const reason = row && 'reason' in row ? row.reason : 'not measured';
      return { name, key, threshold, ratio: null, met: null, line: `Target ${name} >= ${threshold}: not checked (${reason}).` };
    }
    const ratio = Number(row.ratio.toFixed(3));
    const met = row.ratio >= threshold && row.measurement.unexpected === 0 && row.measurement.errors === 0;
    const failures = row.measurement.unexpected + row.measurement.errors;
    const detail = failures > 0 ? `, but ${failures} requests failed` : '';
    return { name, key, threshold, ratio, met, line: `Target ${name} >= ${threshold}: ${met ? 'MET' : 'NOT MET'} (${ratio.toFixed(2)}${detail}).` };
  });
}

const HEADERS = ['endpoint', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', 'ratio'];

/** A fixed-width table; a route that could not be measured gets one line with the reason. */
export function formatTable(rows: Row[]): string {
  const measured = rows.flatMap((row) =>
    'measurement' in row
      ? [
          [
            row.measurement.label,
            String(Math.round(row.measurement.requestsPerSecond)),
            row.measurement.p50Ms.toFixed(1),
            row.measurement.p99Ms.toFixed(1),
            String(row.measurement.unexpected),
            String(row.measurement.errors),
            row.ratio.toFixed(2),
          ],
        ]
      : [],
  );
  const labels = rows.map((row) => ('measurement' in row ? row.measurement.label : row.label));
  const widths = HEADERS.map((header, column) =>
    Math.max(header.length, ...(column === 0 ? labels : measured.map((line) => line[column]!)).map((cell) => cell.length)),
  );
  const format = (line: string[]) => line.map((cell, column) => (column === 0 ? cell.padEnd(widths[0]!) : cell.padStart(widths[column]!))).join('  ');
  const lines = rows.map((row, index) =>
    'measurement' in row ? format(measured.shift()!) : `${labels[index]!.padEnd(widths[0]!)}  ${row.reason}`,
  );
  return [format(HEADERS), widths.map((width) => '-'.repeat(width)).join('  '), ...lines].join('\n');
}
