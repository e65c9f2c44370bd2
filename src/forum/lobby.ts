import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.ts';
import { LOBBY_KEY } from './categories.ts';

export const LOBBY_TOPIC_ID = '00000000-0000-4000-8000-0000000000b1';

export async function findLobbyId(db: Kysely<Database>): Promise<string | undefined> {
  const row = await db.selectFrom('forum_topics').select('id').where('client_token_hash', '=', LOBBY_KEY).executeTakeFirst();
  return row?.id;
}
