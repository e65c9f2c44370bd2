import { CompiledQuery, type Kysely } from 'kysely';
import { dialectOf } from '../store/dialect.ts';
import type { Database } from '../store/schema.ts';
import type { BeforeCommit } from '../store/store.ts';

const PENDING = [
  {
    any: CompiledQuery.raw('select 1 from messages_search_pending limit 1'),
    index: CompiledQuery.raw(
      'insert into messages_search(rowid, body) select m.rowid, m.body from messages_search_pending p join messages m on m.rowid = p.message_rowid',
    ),
    clear: CompiledQuery.raw('delete from messages_search_pending'),
  },
  {
    any: CompiledQuery.raw('select 1 from conversations_search_pending limit 1'),
    index: CompiledQuery.raw(
      'insert into conversations_search(rowid, name, invitation_id) select c.rowid, c.name, c.invitation_id from conversations_search_pending p join conversations c on c.rowid = p.conversation_rowid',
    ),
    clear: CompiledQuery.raw('delete from conversations_search_pending'),
  },
];

/**
 * Indexes the rows that SQLite's search triggers left pending (migration 0009) and empties the
 * pending tables: the store's before-commit participant, run before each batch's COMMIT in its
 * transaction, and once after migrating, for rows written outside the writer. An FTS5 table
 * touched at all joins the transaction and costs its COMMIT a sync, so an empty pending table is
 * only read. PostgreSQL's search indexes (GIN) are written by the statements themselves.
 */
export const flushSearchIndex: BeforeCommit = async (trx: Kysely<Database>) => {
  if (dialectOf(trx) === 'postgres') return;
  for (const pending of PENDING) {
    const { rows } = await trx.executeQuery(pending.any);
    if (rows.length === 0) continue;
    await trx.executeQuery(pending.index);
    await trx.executeQuery(pending.clear);
  }
};
