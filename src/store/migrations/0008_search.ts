import { sql, type Kysely } from 'kysely';
import { dialectOf } from '../dialect.ts';

/**
 * The operator's search and list preview (issue #15).
 *
 * - `last_message_preview` and `last_message_role` on conversations: the list shows the last
 *   message without a query per row. The append command already updates the conversation row, so
 *   the preview rides in that same UPDATE.
 * - Full-text search over message bodies and over a conversation's name and invitation id.
 *   SQLite: FTS5 tables with external content (they index the rows in place and store no copy of
 *   the text), kept in step by triggers, so no command changes. The cost on the write path is one
 *   FTS5 insert per message (its words tokenised into the transaction's pending segment) and, for
 *   a deletion, one FTS5 delete per message. The external content is keyed by the implicit rowid:
 *   `VACUUM INTO` (the backup) keeps rowids, and `insert into messages_search(messages_search)
 *   values('rebuild')` rebuilds an index from its table should it ever drift.
 *   PostgreSQL: GIN expression indexes on to_tsvector('simple', …) of the text with its punctuation
 *   made spaces (as FTS5 splits words: 'acme-2026' is 'acme' and '2026', not 'acme' and '-2026'): no extra table and no
 *   trigger; each insert adds its terms to the index's pending list (fastupdate), merged later.
 *   The query in src/inbox/operator/search.ts repeats these expressions exactly, so the planner
 *   can use the indexes. 'simple' lowercases and does not stem: names, ids and messages come in
 *   every language.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('conversations').addColumn('last_message_preview', 'text', (c) => c.notNull().defaultTo('')).execute();
  await db.schema.alterTable('conversations').addColumn('last_message_role', 'text', (c) => c.notNull().defaultTo('visitor')).execute();
  // Conversations stored before this migration get their last message's preview once.
  await sql`
    update conversations set
      last_message_preview = coalesce((select substr(body, 1, 140) from messages
        where messages.conversation_id = conversations.id order by messages.id desc limit 1), ''),
      last_message_role = coalesce((select role from messages
        where messages.conversation_id = conversations.id order by messages.id desc limit 1), 'visitor')
  `.execute(db);

  if (dialectOf(db) === 'postgres') {
    await sql`create index messages_search on messages using gin (to_tsvector('simple', regexp_replace(body, '[[:punct:]]+', ' ', 'g')))`.execute(db);
    await sql`create index conversations_search on conversations using gin (to_tsvector('simple', regexp_replace(name || ' ' || coalesce(invitation_id, ''), '[[:punct:]]+', ' ', 'g')))`.execute(db);
    return;
  }

  await sql`create virtual table messages_search using fts5(body, content='messages')`.execute(db);
  await sql`create trigger messages_search_insert after insert on messages begin
    insert into messages_search(rowid, body) values (new.rowid, new.body);
  end`.execute(db);
  await sql`create trigger messages_search_delete after delete on messages begin
    insert into messages_search(messages_search, rowid, body) values ('delete', old.rowid, old.body);
  end`.execute(db);
  await sql`create trigger messages_search_update after update of body on messages begin
    insert into messages_search(messages_search, rowid, body) values ('delete', old.rowid, old.body);
    insert into messages_search(rowid, body) values (new.rowid, new.body);
  end`.execute(db);
  await sql`insert into messages_search(messages_search) values ('rebuild')`.execute(db);

  await sql`create virtual table conversations_search using fts5(name, invitation_id, content='conversations')`.execute(db);
  await sql`create trigger conversations_search_insert after insert on conversations begin
    insert into conversations_search(rowid, name, invitation_id) values (new.rowid, new.name, new.invitation_id);
  end`.execute(db);
  await sql`create trigger conversations_search_delete after delete on conversations begin
    insert into conversations_search(conversations_search, rowid, name, invitation_id) values ('delete', old.rowid, old.name, old.invitation_id);
  end`.execute(db);
  await sql`create trigger conversations_search_update after update of name, invitation_id on conversations begin
    insert into conversations_search(conversations_search, rowid, name, invitation_id) values ('delete', old.rowid, old.name, old.invitation_id);
    insert into conversations_search(rowid, name, invitation_id) values (new.rowid, new.name, new.invitation_id);
  end`.execute(db);
  await sql`insert into conversations_search(conversations_search) values ('rebuild')`.execute(db);
}
