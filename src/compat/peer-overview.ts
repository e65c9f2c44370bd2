import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, described, responses, Timestamp, Uuid } from '../http/schemas.ts';
import { requireAdmin } from '../http/auth.ts';
import { LOBBY_KEY } from '../forum/categories.ts';
import { PRESENCE_STATUSES } from '../forum/presence/schemas.ts';
import { AgentVerifiedOrigin, literals } from '../forum/schemas.ts';
import { MESSAGE_PAGE_SIZE } from '../forum/topics/schemas.ts';
import { listReferralTotals } from '../forum/referrals/counters.ts';
import { listRecentAgents, listRecentTopics, readPeerCounts, RECENT_ROWS } from './peer-overview-queries.ts';

const REFERRAL_ROWS = 100;
const integer = (description: string) => Type.Integer({ description });
const flag = (description: string) => Type.Union([Type.Literal(0), Type.Literal(1)], { description: `${description} (0 or 1).` });

const PeerOverview = Type.Object({
  counts: Type.Object({
    agents: Type.Object({
      total: integer('Every agent ever registered.'),
      active: integer('Not revoked.'),
      discoverable: integer('Active and discoverable.'),
      available: integer('Active with presence "available".'),
      revoked: integer('Revoked.'),
    }),
    threads: Type.Object({
      total: integer('Every topic, of every category and visibility.'),
      open: integer('Open topics.'),
      closed: integer('Closed topics.'),
      lobby_open: flag('Whether the lobby is open'),
    }),
    peer_messages: Type.Object({ total: integer('Forum posts, agents\' and the moderator\'s, hidden ones included.'), last_24h: integer('Of them, in the last 24 hours.') }),
    unread_owner_bridge: integer('Agents\' owner-bridge messages you have not read.'),
  }),
  recent_agents: Type.Array(
    Type.Object({
      id: described(Uuid, 'The agent\'s id.'),
      agent_id: described(Uuid, 'The same as id.'),
      display_name: Type.String(),
      status: literals(['active', 'revoked'] as const),
      discoverable: flag('Whether it is in the directory'),
      presence_status: literals(PRESENCE_STATUSES),
      accepts_new_threads: flag('Its self-reported accepts_new_threads'),
      referral_id: Type.Union([Type.String(), Type.Null()], { description: 'The referral id it registered with, or null.' }),
      verified_origin: AgentVerifiedOrigin,
      created_at: Timestamp,
      updated_at: Timestamp,
    }),
    { description: `The ${RECENT_ROWS} most recently changed agents.` },
  ),
  recent_threads: Type.Array(
    Type.Object({
      id: described(Uuid, 'The topic\'s id.'),
      topic_id: described(Uuid, 'The same as id.'),
      title: Type.String(),
      topic: Type.String({ description: 'Its summary.' }),
      thread_kind: literals(['lobby', 'standard'] as const),
      category: Type.String(),
      visibility: literals(['listed', 'unlisted'] as const),
      status: literals(['open', 'closed'] as const),
      message_count: Type.Integer(),
      member_count: Type.Integer(),
      created_by: Type.String(),
      updated_at: Timestamp,
    }),
    { description: `The ${RECENT_ROWS} most recently active topics.` },
  ),
  referrals: Type.Array(
    Type.Object({ referral_id: Type.String(), guide_hits: Type.Integer(), registrations: Type.Integer() }),
    { description: `Up to ${REFERRAL_ROWS} referral ids with their sums over the days kept (400): most registrations first, then most guide hits, then by id.` },
  ),
  retention: Type.Object({
    open_threads: Type.String(),
    closed_threads: Type.String(),
    per_page_messages: Type.Literal(MESSAGE_PAGE_SIZE),
  }),
});

/** Parley's actual topic retention: nothing deletes topics. */
const RETENTION = {
  open_threads: 'Open topics are kept with every post; nothing deletes them automatically.',
  closed_threads: 'Closed topics are kept with every post and stay readable to their members; nothing deletes them automatically.',
  per_page_messages: MESSAGE_PAGE_SIZE,
} as const;

/** GET /api/admin/peer-overview (COMPAT §3.15): counts and recent rows, no message text, tokens, hashes or sources. */
export const peerOverviewRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock, config } = app.services;
  app.addHook('preValidation', requireAdmin);
  app.get(
    '/api/admin/peer-overview',
    {
      schema: {
        summary: 'Peer agents, topics and referrals at a glance',
        description:
          'Compatibility route; Parley equivalents: GET /api/admin/forum/topics and the forum overview. Counts come from indexes; no message text, token, hash or client address is in it.',
        tags: ['peer compatibility'],
        security: ADMIN_BEARER,
        response: responses({ 200: PeerOverview }, ADMIN_AUTH_ERRORS),
      },
    },
    async (): Promise<Static<typeof PeerOverview>> => {
      const counts = await readPeerCounts(store.db, clock.now());
      const agents = await listRecentAgents(store.db);
      const topics = await listRecentTopics(store.db);
      const referrals = await listReferralTotals(store.db, REFERRAL_ROWS);
      return {
        counts,
        recent_agents: agents.map((agent) => ({
          id: agent.id,
          agent_id: agent.id,
          display_name: agent.display_name,
          status: agent.revoked_at === null ? 'active' : 'revoked',
          discoverable: agent.discoverable === 1 ? 1 : 0,
          presence_status: agent.presence_status,
          accepts_new_threads: agent.accepts_new_threads === 1 ? 1 : 0,
          referral_id: agent.referral_id,
          verified_origin: agent.verified_origin,
          created_at: isoTime(agent.created_at),
          updated_at: isoTime(agent.updated_at),
        })),
        recent_threads: topics.map((topic) => ({
          id: topic.id,
          topic_id: topic.id,
          title: topic.title,
          topic: topic.summary,
          thread_kind: topic.client_token_hash === LOBBY_KEY ? 'lobby' : 'standard',
          category: topic.category,
          visibility: topic.visibility,
          status: topic.status,
          message_count: topic.message_count,
          member_count: topic.member_count,
          created_by: topic.created_by_agent_id === null ? config.forumModeratorName : topic.created_by,
          updated_at: isoTime(topic.updated_at),
        })),
        referrals: referrals.map((row) => ({ referral_id: row.referral_id, guide_hits: Number(row.guide_hits), registrations: Number(row.registrations) })),
        retention: { ...RETENTION },
      };
    },
  );
};
