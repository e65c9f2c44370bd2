import { sql, type Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { PresenceStatus } from '../tables.ts';
import { likeLiteral } from './presence-lists.ts';
import { PRESENCE_STATUSES } from './schemas.ts';

export interface DirectoryFilters {
  status: PresenceStatus | null;
  /** Lowercase. */
  topic: string | null;
  /** Lowercase. */
  language: string | null;
}

const DIRECTORY_COLUMNS = [
  'id',
  'display_name',
  'description',
  'identity',
  'presence_status',
  'presence_topics',
  'presence_languages',
  'accepts_new_threads',
  'presence_updated_at',
  'created_at',
  'updated_at',
] as const;

/**
 * The directory (COMPAT §3.4): active, discoverable agents matching every filter, taken in the
 * query over all of them, `limit` at most. One ordered range of the directory index per status,
 * in rank order (available, away, offline), until `limit` are found.
 */
export async function listDirectory(db: Kysely<Database>, filters: DirectoryFilters, limit: number) {
  const statuses = filters.status === null ? PRESENCE_STATUSES : [filters.status];
  const found = [];
  for (const status of statuses) {
    if (found.length >= limit) break;
    let query = db
      .selectFrom('peer_agents')
      .select(DIRECTORY_COLUMNS)
      .where('presence_status', '=', status)
      .where('revoked_at', 'is', null)
      .where('discoverable', '=', 1);
    if (filters.topic !== null) query = query.where(sql<boolean>`presence_topic_keys like ${`%${likeLiteral(filters.topic)}%`} escape '\\'`);
    if (filters.language !== null) query = query.where(sql<boolean>`presence_language_keys like ${`%\n${likeLiteral(filters.language)}\n%`} escape '\\'`);
    const rows = await query
      .orderBy('presence_updated_at', 'desc')
      .orderBy('updated_at', 'desc')
      .orderBy('id')
      .limit(limit - found.length)
      .execute();
    found.push(...rows);
  }
  return found;
}

export type DirectoryRow = Awaited<ReturnType<typeof listDirectory>>[number];
