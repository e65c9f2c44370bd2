import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import { dialectOf } from '../../store/dialect.ts';
import type { Database } from '../../store/schema.ts';

/** At most this many words of a search are used; more narrow nothing a person would type. */
const MAX_TERMS = 8;
const MAX_TERM_LENGTH = 64;

/**
 * The words of a search: runs of letters and digits, lowercased. Everything else (quotes,
 * operators, punctuation) separates words, so no input can reach the full-text query syntax.
 */
export function searchTerms(text: string): string[] {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  return [...new Set(words.map((word) => word.slice(0, MAX_TERM_LENGTH)))].slice(0, MAX_TERMS);
}

/**
 * Conversations whose name and invitation id, or one of whose messages, hold every word as a
 * word prefix ("inv" finds "invoice"). One condition for both stores: FTS5 tables on SQLite, GIN
 * indexes over to_tsvector('simple', …) on PostgreSQL (see migration 0008_search, whose index
 * expressions these repeat exactly). No words: nothing matches.
 */
export function matchesSearch(db: Kysely<Database>, terms: string[]): Expression<SqlBool> {
  if (terms.length === 0) return sql<SqlBool>`1 = 0`;
  if (dialectOf(db) === 'postgres') {
    const query = terms.map((term) => `${term}:*`).join(' & ');
    return sql<SqlBool>`conversations.id in (
      select conversation_id from messages where to_tsvector('simple', regexp_replace(body, '[[:punct:]]+', ' ', 'g')) @@ to_tsquery('simple', ${query})
      union
      select id from conversations where to_tsvector('simple', regexp_replace(name || ' ' || coalesce(invitation_id, ''), '[[:punct:]]+', ' ', 'g')) @@ to_tsquery('simple', ${query})
    )`;
  }
  const query = terms.map((term) => `"${term}"*`).join(' ');
  return sql<SqlBool>`conversations.id in (
    select conversation_id from messages where rowid in (select rowid from messages_search where messages_search match ${query})
    union
    select id from conversations where rowid in (select rowid from conversations_search where conversations_search match ${query})
  )`;
}
