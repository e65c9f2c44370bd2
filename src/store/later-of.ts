import { sql, type RawBuilder } from 'kysely';

/**
 * The later of a stored time and `now`, for a SET that records activity: a clock that steps back
 * never moves the time back, so rows ordered on it (keyset lists) are neither repeated nor
 * reordered. A CASE runs as is on SQLite and PostgreSQL and treats a NULL column as "no time yet" on
 * both, where SQLite's max(a, b) would give NULL and PostgreSQL's greatest(a, b) would skip it.
 */
export function laterOf(column: string, now: number): RawBuilder<number> {
  const stored = sql.ref(column);
  return sql<number>`case when ${stored} > ${now} then ${stored} else ${now} end`;
}
