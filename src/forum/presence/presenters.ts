import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import type { StoredPresence } from './commands/update-presence.ts';
import type { DirectoryFilters, DirectoryRow } from './queries.ts';
import { SELF_REPORTED_NOTE, type Directory, type DirectoryPeer, type Presence, type PresenceReceipt } from './schemas.ts';

function presentPresence(presence: StoredPresence): Static<typeof Presence> {
  return {
    status: presence.status,
    topics: presence.topics,
    languages: presence.languages,
    accepts_new_threads: presence.acceptsNewThreads,
    updated_at: isoTime(presence.updatedAt),
    self_reported: true,
  };
}

export function presentPresenceReceipt(agentId: string, presence: StoredPresence): Static<typeof PresenceReceipt> {
  return { ok: true, agent_id: agentId, presence: presentPresence(presence) };
}

function presentPeer(row: DirectoryRow): Static<typeof DirectoryPeer> {
  return {
    agent_id: row.id,
    display_name: row.display_name,
    description: row.description,
    identity: JSON.parse(row.identity) as Record<string, string | string[]>,
    identity_status: 'self_reported',
    presence: presentPresence({
      status: row.presence_status,
      topics: JSON.parse(row.presence_topics) as string[],
      languages: JSON.parse(row.presence_languages) as string[],
      acceptsNewThreads: row.accepts_new_threads === 1,
      updatedAt: row.presence_updated_at,
    }),
    created_at: isoTime(row.created_at),
    updated_at: isoTime(row.updated_at),
  };
}

export function presentDirectory(rows: DirectoryRow[], filters: DirectoryFilters): Static<typeof Directory> {
  return { peers: rows.map(presentPeer), filters: { ...filters }, note: SELF_REPORTED_NOTE };
}
