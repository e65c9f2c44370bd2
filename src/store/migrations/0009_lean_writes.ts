import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * Fewer pages per write (issue #12).
 *
 * - `conversations_by_invitation` holds only conversations that have an invitation id: every
 *   message moves a conversation's `updated_at`, and each index on it costs that write a delete and
 *   an insert (about 12 µs each on SQLite, more than the row itself). A query filtering on
 *   `invitation_id = ?` implies `invitation_id is not null`, so both stores still use the index.
 * - SQLite's full-text indexes are written once per batch, not once per row. FTS5 flushes the
 *   words it holds to a new segment at every SAVEPOINT and RELEASE, and group commit gives each
 *   command its own savepoint, so a trigger that wrote the FTS5 table made a segment per message
 *   (and merges later). The triggers now note the new row in a pending table; the inbox's
 *   before-commit participant `flushSearchIndex` (src/inbox/search-index.ts) indexes the pending
 *   rows before each batch's COMMIT, in the same transaction, so the index never lags a commit. A
 *   row deleted or edited while pending has nothing in the index yet to delete.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('conversations_by_invitation').execute();
  await db.schema
    .createIndex('conversations_by_invitation')
    .on('conversations')
    .columns(['invitation_id', 'updated_at', 'id'])
    .where(sql.ref('invitation_id'), 'is not', null)
    .execute();
  if (dialectOf(db) === 'postgres') return;

  await sql`create table messages_search_pending (message_rowid integer primary key)`.execute(db);
  await sql`create table conversations_search_pending (conversation_rowid integer primary key)`.execute(db);
  for (const name of ['messages_search_insert', 'messages_search_delete', 'messages_search_update', 'conversations_search_insert', 'conversations_search_delete', 'conversations_search_update']) {
    await sql`drop trigger ${sql.id(name)}`.execute(db);
  }

  await sql`create trigger messages_search_insert after insert on messages begin
    insert into messages_search_pending(message_rowid) values (new.rowid);
  end`.execute(db);
  await sql`create trigger messages_search_delete after delete on messages begin
    insert into messages_search(messages_search, rowid, body) select 'delete', old.rowid, old.body
      where not exists (select 1 from messages_search_pending where message_rowid = old.rowid);
    delete from messages_search_pending where message_rowid = old.rowid;
  end`.execute(db);
  await sql`create trigger messages_search_update after update of body on messages
    when not exists (select 1 from messages_search_pending where message_rowid = old.rowid) begin
    insert into messages_search(messages_search, rowid, body) values ('delete', old.rowid, old.body);
    insert into messages_search_pending(message_rowid) values (new.rowid);
  end`.execute(db);

  await sql`create trigger conversations_search_insert after insert on conversations begin
    insert into conversations_search_pending(conversation_rowid) values (new.rowid);
  end`.execute(db);
  await sql`create trigger conversations_search_delete after delete on conversations begin
    insert into conversations_search(conversations_search, rowid, name, invitation_id) select 'delete', old.rowid, old.name, old.invitation_id
      where not exists (select 1 from conversations_search_pending where conversation_rowid = old.rowid);
    delete from conversations_search_pending where conversation_rowid = old.rowid;
  end`.execute(db);
  await sql`create trigger conversations_search_update after update of name, invitation_id on conversations
    when not exists (select 1 from conversations_search_pending where conversation_rowid = old.rowid) begin
    insert into conversations_search(conversations_search, rowid, name, invitation_id) values ('delete', old.rowid, old.name, old.invitation_id);
    insert into conversations_search_pending(conversation_rowid) values (new.rowid);
  end`.execute(db);
}
