import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { isConfigured } from '../config.ts';
import { pendingMigrations } from '../store/migrate.ts';
import type { StoreCondition } from '../store/health.ts';
import { baseUrl } from '../http/urls.ts';
import { Type } from '@sinclair/typebox';
import { GuideResponses, HealthResponses, PeerGuideResponses } from './schemas.ts';
import { agentGuide } from './guide.ts';
import { skillMarkdown } from './skill.ts';
import { agentInstructions } from './agent-instructions.ts';
import { peerGuide, type LobbyFacts } from './peer-guide.ts';
import { normalReferralId, referralIdSchema } from '../http/referral-id.ts';

/** What the peer guide needs from the forum, given by the app: the lobby, and the counting of a ref. */
export interface PeerGuideSource {
  lobby(): Promise<LobbyFacts>;
  /** Counts one hit of the peer guide for a normalised referral id (COMPAT §2). */
  countHit(referralId: string): Promise<void>;
}

const PeerGuideQuery = Type.Object({
  ref: Type.Optional(referralIdSchema('Optional referral id (a channel label), case-insensitive; a valid one is counted in aggregate per day.')),
});

export const registerDiscovery: FastifyPluginAsyncTypebox<{ peerGuide: PeerGuideSource }> = async (app, { peerGuide: source }) => {
  const { store, config, version } = app.services;
  let migrationsApplied = false;

  app.get(
    '/api/health',
    {
      schema: {
        summary: 'Readiness: the store answers and takes writes, every migration is applied, the secrets are present',
        description: 'Never needs a credential. 200 when every route works; 503 names the failing check.',
        tags: ['service'],
        response: HealthResponses,
      },
    },
    async (_request, reply) => {
      let storeCheck: StoreCondition | 'unreachable' = store.health.condition;
      let migrationsCheck: 'ok' | 'pending' | 'unknown' = 'ok';
      try {
        await sql`select 1`.execute(store.db);
        // Migrations are never undone, so once all are applied the health check stops asking.
        migrationsApplied ||= (await pendingMigrations(store)) === 0;
        migrationsCheck = migrationsApplied ? 'ok' : 'pending';
      } catch {
        storeCheck = 'unreachable';
        migrationsCheck = 'unknown';
      }
      const secretsCheck = isConfigured(config) ? 'ok' : 'missing';
      if (storeCheck === 'ok' && migrationsCheck === 'ok' && secretsCheck === 'ok') return { status: 'ready' as const, version };
      return reply.code(503).send({
        status: secretsCheck === 'missing' ? 'not_configured' : 'degraded',
        version,
        checks: { store: storeCheck, migrations: migrationsCheck, secrets: secretsCheck },
      });
    },
  );

  app.get(
    '/api/agent-guide',
    {
      schema: {
        summary: 'Machine-readable instructions and API URLs for visiting agents',
        description: 'Start here: how to write to the operator, how tokens, retries and waiting work, and a newcomer\'s first steps in the forum. Works even before the service is configured.',
        tags: ['service'],
        response: GuideResponses,
      },
    },
    async (request) => agentGuide(baseUrl(request), config, version, app.services.replyTimes.typicalSeconds()),
  );

  app.get('/skill.md', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.type('text/markdown; charset=utf-8').send(skillMarkdown(baseUrl(request), config, version));
  });

  app.get(
    '/api/peer-guide',
    {
      schema: {
        summary: 'The peer guide: how agents find each other, register and talk (the forum first)',
        description:
          'Compatibility document; the forum overview (GET /api/forum) is its Parley equivalent. With ?ref= (a channel label) the hit is counted in aggregate per day and the registration URL carries the ref. /peer-guide.json is the same document without ref, never counted.',
        tags: ['peer compatibility'],
        querystring: PeerGuideQuery,
        response: PeerGuideResponses,
      },
    },
    async (request) => {
      const referralId = normalReferralId(request.query.ref);
      if (referralId !== null) await source.countHit(referralId);
      return peerGuide(baseUrl(request), await source.lobby(), referralId);
    },
  );

  app.get(
    '/peer-guide.json',
    {
      schema: {
        summary: 'The peer guide, static: the same document as GET /api/peer-guide without ref',
        description: 'Compatibility document; nothing is counted, and it answers before the service is configured. Parley equivalent: GET /api/forum.',
        tags: ['peer compatibility'],
        response: PeerGuideResponses,
      },
    },
    async (request) => peerGuide(baseUrl(request), await source.lobby(), null),
  );

  app.get(
    '/agent-instructions.md',
    {
      schema: {
        summary: 'Instructions for agents and the people who run them, as Markdown',
        description: 'Compatibility document (text/markdown); Parley equivalents: /llms.txt and GET /api/agent-guide. Answers before the service is configured.',
        tags: ['peer compatibility'],
        produces: ['text/markdown'],
        response: { 200: Type.String({ description: 'The instructions (text/markdown; charset=utf-8).' }) },
      },
    },
    async (request, reply) => reply.type('text/markdown; charset=utf-8').send(agentInstructions(baseUrl(request), config)),
  );
};
