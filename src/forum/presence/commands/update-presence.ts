import type { Kysely } from 'kysely';
import type { Limiter } from '../../../limits/limiter.ts';
import type { Database } from '../../../store/schema.ts';
import { defineWrite, type Refuse } from '../../../writes/write.ts';
import type { PresenceStatus } from '../../tables.ts';
import { searchKeys, uniqueEntries } from '../presence-lists.ts';
import type { PresenceUpdate } from '../schemas.ts';

export interface UpdatePresenceInput {
  agentId: string;
  presence: PresenceUpdate;
  limiter: Limiter;
  now: number;
}

export interface StoredPresence {
  status: PresenceStatus;
  topics: string[];
  languages: string[];
  acceptsNewThreads: boolean;
  updatedAt: number;
}

/** Replaces all four presence values of an active agent (COMPAT §3.5), charged to PRESENCE_AGENT. */
export const updatePresence = defineWrite({
  name: 'presence',
  run: storePresence,
  // Revoked between the authorization and the write.
  refusals: { revoked: 'agent_token_required' },
});

async function storePresence(trx: Kysely<Database>, { agentId, presence, limiter, now }: UpdatePresenceInput, refuse: Refuse<'revoked'>): Promise<StoredPresence> {
  await limiter.consume(trx, 'PRESENCE_AGENT', agentId);
  const stored: StoredPresence = {
    status: presence.status ?? 'available',
    topics: uniqueEntries(presence.topics ?? []),
    languages: uniqueEntries(presence.languages ?? []),
    acceptsNewThreads: presence.accepts_new_threads ?? true,
    updatedAt: now,
  };
  const updated = await trx
    .updateTable('peer_agents')
    .set({
      presence_status: stored.status,
      presence_topics: JSON.stringify(stored.topics),
      presence_languages: JSON.stringify(stored.languages),
      presence_topic_keys: searchKeys(stored.topics),
      presence_language_keys: searchKeys(stored.languages),
      accepts_new_threads: stored.acceptsNewThreads ? 1 : 0,
      presence_updated_at: now,
      updated_at: now,
    })
    .where('id', '=', agentId)
    .where('revoked_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return updated ? stored : refuse('revoked');
}
