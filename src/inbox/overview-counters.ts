import type { CompiledQuery, Kysely } from 'kysely';
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
  const bump = counterBump(db, deltas);
  if (bump) await db.executeQuery(bump);
}

/** bumpCounters as a statement to run with others (executeTogether); undefined when every delta is zero. */
export function counterBump(db: Kysely<Database>, deltas: Record<string, number>): CompiledQuery | undefined {
  // In name order: transactions bumping the same counters lock their rows in one order, so two
  // opposite moves (open→closed beside closed→open) cannot deadlock on PostgreSQL.
  const moves = Object.entries(deltas)
    .filter(([, delta]) => delta !== 0)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (moves.length === 0) return undefined;
  const params: Bumps = {};
  moves.forEach(([name, delta], index) => {
    params[`name${index}`] = name;
    params[`delta${index}`] = delta;
  });
  return bumpStatement(moves.length).compile(db, params);
}

export async function bumpInvitationCount(db: Kysely<Database>, invitationId: string | null, delta: number): Promise<void> {
  const bump = invitationCountBump(db, invitationId, delta);
  if (bump) await db.executeQuery(bump);
}

/** bumpInvitationCount as a statement to run with others; undefined when there is nothing to count. */
export function invitationCountBump(db: Kysely<Database>, invitationId: string | null, delta: number): CompiledQuery | undefined {
  if (invitationId === null || delta === 0) return undefined;
  return db
    .insertInto('invitation_counts')
    .values({ invitation_id: invitationId, count: delta })
    .onConflict((conflict) =>
      conflict.column('invitation_id').doUpdateSet((eb) => ({ count: eb('invitation_counts.count', '+', delta) })),
    )
    .compile();
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
