import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { isConfigured } from '../config.ts';
import { pendingMigrations } from '../store/migrate.ts';
import type { StoreCondition } from '../store/health.ts';
import { baseUrl } from '../http/urls.ts';
import { guideResponses, HealthResponses } from './schemas.ts';
import { agentGuide, type GuideFields } from './guide.ts';
import { skillMarkdown } from './skill.ts';

/** Health, the agent guide (with the fields the app adds: `guideFields`) and skill.md. */
export const registerDiscovery: FastifyPluginAsyncTypebox<{ guideFields: GuideFields }> = async (app, { guideFields }) => {
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
        response: guideResponses(guideFields.properties),
      },
    },
    async (request) => {
      const base = baseUrl(request);
      return { ...agentGuide(base, config, version, app.services.replyTimes.typicalSeconds()), ...guideFields.values(base, config) };
    },
  );

  app.get('/skill.md', { schema: { hide: true } }, async (request, reply) => {
    reply.header('Cache-Control', 'no-cache');
    reply.header('X-Content-Type-Options', 'nosniff');
    return reply.type('text/markdown; charset=utf-8').send(skillMarkdown(baseUrl(request), config, version));
  });
};
