import type { Kysely } from 'kysely';
import { prepare } from '../store/prepared.ts';
import type { Database } from '../store/schema.ts';

/** Names of the aggregate counters the overview reads instead of counting rows. */
export const counterName = {
  conversations: 'conversations',
  unreadThreads: 'unread_threads',
  status: (status: string) => `status:${status}`,
  label: (label: string) => `label:${label}`,
};

const bump = prepare<{ name: string; delta: number }, never>(['name', 'delta'], (db, p) =>
  db
    .insertInto('inbox_counters')
    .values({ name: p.name, value: p.delta })
    .onConflict((conflict) => conflict.column('name').doUpdateSet((eb) => ({ value: eb('inbox_counters.value', '+', eb.ref('excluded.value')) }))),
);

/** Adds each delta to its counter, in the caller's transaction; zero deltas are skipped. */
export async function bumpCounters(db: Kysely<Database>, deltas: Record<string, number>): Promise<void> {
  // In name order: transactions bumping the same counters lock their rows in one order, so two
  // opposite moves (open→closed beside closed→open) cannot deadlock on PostgreSQL.
  for (const [name, delta] of Object.entries(deltas).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (delta === 0) continue;
    await bump.execute(db, { name, delta });
  }
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
