import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import type { Store } from '../store/store.ts';
import type { LossReason } from './tables.ts';

/** Counts events given up, in the transaction that gives them up. */
export async function countLoss(trx: Kysely<Database>, reason: LossReason, events: number, at: number): Promise<void> {
  if (events <= 0) return;
  await trx
    .insertInto('webhook_losses')
    .values({ reason, events, last_at: at })
    .onConflict((conflict) => conflict.column('reason').doUpdateSet((eb) => ({ events: eb('webhook_losses.events', '+', events), last_at: eb.ref('excluded.last_at') })))
    .execute();
}

export interface WebhookLosses {
  dropped: number;
  givenUp: number;
  lastAt: number | null;
}

/** Every event given up so far, by reason (at most two rows). */
export async function readLosses(store: Store): Promise<WebhookLosses> {
  const rows = await store.db.selectFrom('webhook_losses').selectAll().execute();
  const of = (reason: LossReason) => Number(rows.find((row) => row.reason === reason)?.events ?? 0);
  const times = rows.map((row) => Number(row.last_at));
  return { dropped: of('dropped'), givenUp: of('given_up'), lastAt: times.length > 0 ? Math.max(...times) : null };
}
