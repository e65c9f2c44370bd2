import type { Kysely } from 'kysely';
import { prepare, type Prepared } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

/** Names of the aggregate counters the overview reads instead of counting rows. */
export const counterName = {
  conversations: 'conversations',
  unreadThreads: 'unread_threads',
  status: (status: string) => `status:${status}`,
  label: (label: string) => `label:${label}`,
};

type Bumps = Record<string, string | number>;

/** One upsert of `rows` counters (a statement per row count, prepared once each). */
const bumpStatements = new Map<number, Prepared<Bumps, never>>();

function bumpStatement(rows: number): Prepared<Bumps, never> {
  let statement = bumpStatements.get(rows);
  if (!statement) {
    const indexes = Array.from({ length: rows }, (_, index) => index);
    statement = prepare<Bumps, never>(
      indexes.flatMap((index) => [`name${index}`, `delta${index}`]),
      (db, p) =>
        db
          .insertInto('inbox_counters')
          .values(indexes.map((index) => ({ name: p[`name${index}`] as string, value: p[`delta${index}`] as number })))
          .onConflict((conflict) => conflict.column('name').doUpdateSet((eb) => ({ value: eb('inbox_counters.value', '+', eb.ref('excluded.value')) }))),
    );
    bumpStatements.set(rows, statement);
  }
  return statement;
}

/** Adds each delta to its counter, in the caller's transaction, in one statement; zero deltas are skipped. */
export async function bumpCounters(db: Kysely<Database>, deltas: Record<string, number>): Promise<void> {
  // In name order: transactions bumping the same counters lock their rows in one order, so two
  // opposite moves (open→closed beside closed→open) cannot deadlock on PostgreSQL.
  const moves = Object.entries(deltas)
    .filter(([, delta]) => delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (moves.length === 0) return;
  const params: Bumps = {};
  moves.forEach(([name, delta], index) => {
    params[`name${index}`] = name;
    params[`delta${index}`] = delta;
  });
  await bumpStatement(moves.length).execute(db, params);
}

export async function bumpInvitationCount(db: Kysely<Database>, invitationId: string | null, delta: number): Promise<void> {
  if (invitationId === null || delta === 0) return;
  await db
    .insertInto('invitation_counts')
    .values({ invitation_id: invitationId, count: delta })
    .onConflict((conflict) =>
      conflict.column('invitation_id').doUpdateSet((eb) => ({ count: eb('invitation_counts.count', '+', delta) })),
    )
    .execute();
}

/** The two totals the metrics report, read from their counters at each scrape (one indexed query). */
export async function readInboxTotals(db: Kysely<Database>): Promise<{ conversations: number; unreadThreads: number }> {
  const rows = await db
    .selectFrom('inbox_counters')
    .select(['name', 'value'])
    .where('name', 'in', [counterName.conversations, counterName.unreadThreads])
    .execute();
  const value = (name: string) => Number(rows.find((row) => row.name === name)?.value ?? 0);
  return { conversations: value(counterName.conversations), unreadThreads: value(counterName.unreadThreads) };
}
