import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { alertsOff, type Alerts } from './alerts/alerts.ts';
import { systemClock, type Clock } from './clock.ts';
import { isConfigured, notConfiguredLine, type Config } from './config.ts';
import { registerOpenApiDocuments } from './discovery/openapi.ts';
import { registerDiscovery } from './discovery/routes.ts';
import { registerOldLobbyRedirect } from './forum/old-lobby-id.ts';
import { registerForum } from './forum/routes.ts';
import { compatDocumentRoutes } from './compat/document-routes.ts';
import { compatGuideFields } from './compat/guide-fields.ts';
import { registerPeerThreads } from './compat/routes.ts';
import { proxyTrust } from './http/client-source.ts';
import { ApiError } from './http/errors.ts';
import { registerErrorHandler, sendError } from './http/error-handler.ts';
import { registerJsonBody, TRANSPORT_LIMIT_BYTES } from './http/json-body.ts';
import { answerFrameworkError, refuseMissingHost, registerApiHeaders, registerRouting, routePath } from './http/routing.ts';
import { answerClientError, transportServer } from './http/server.ts';
import { Challenge, ErrorBody, lowercaseIds } from './http/schemas.ts';
import { Challenges } from './challenges/challenges.ts';
import { registerChallengeRoute } from './challenges/routes.ts';
import { SignatureAgents } from './bot-auth/signature-agents.ts';
import { absentNulls, trimStrings, validatorCompiler } from './http/validation.ts';
import { sharedSerializers } from './http/serialization.ts';
import { countBlocks } from './blocks/metrics.ts';
import { registerBlocks } from './blocks/routes.ts';
import { registerOperatorInbox } from './inbox/operator/routes.ts';
import { readInboxTotals } from './inbox/overview-counters.ts';
import { registerVisitorInbox } from './inbox/visitor/routes.ts';
import { VisitorReads } from './inbox/visitor/visitor-read.ts';
import { registerPages } from './pages/plugin.ts';
import { Limiter } from './limits/limiter.ts';
import { ActionLinks } from './links/action-links.ts';
import { ChangeHub } from './live/hub.ts';
import { countRelay } from './live/metrics.ts';
import { PostgresRelay } from './live/postgres-relay.ts';
import { registerEventStream } from './live/routes.ts';
import type { LiveTimers } from './live/timers.ts';
import { registerMcp } from './mcp/routes.ts';
import { registerA2a } from './a2a/routes.ts';
import { registerTelegramWebhook } from './telegram/webhook.ts';
import { agentCard } from './discovery/agent-card.ts';
import { lazyChildLoggers, RequestLogController } from './logging.ts';
import { registerWebhooks } from './webhooks/plugin.ts';
import { registerMetrics } from './metrics/plugin.ts';
import { FirstReplyTimes } from './inbox/first-reply-times.ts';
import type { Services } from './services.ts';
import type { Store } from './store/store.ts';
import { changeSink } from './writes/changes.ts';

export const VERSION = '0.1.0';

export interface AppOptions {
  config: Config;
  store: Store;
  clock?: Clock;
  alerts?: Alerts;
  /** The same signer the alerts put links in with; unset, one is made from the configuration. */
  actionLinks?: ActionLinks;
  logger?: FastifyServerOptions['logger'];
  /** The built pages (dist/web); unset, they are built from web/ when stale (running from source). */
  pagesDir?: string | undefined;
  /** The held reads' deadlines and the event streams' heartbeats; unset, the process's own timers. */
  liveTimers?: LiveTimers;
}

/** Paths that answer while the service is not configured (CONTRACT §7). */
const ALWAYS_OPEN = new Set(['/api/health', '/api/agent-guide']);

export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const clock = options.clock ?? systemClock;
  const app = Fastify({
    logger: options.logger ?? false,
    logController: new RequestLogController(),
    childLoggerFactory: lazyChildLoggers,
    bodyLimit: TRANSPORT_LIMIT_BYTES,
    trustProxy: proxyTrust(options.config.trustProxy),
    return503OnClosing: true,
    frameworkErrors: answerFrameworkError,
    serverFactory: transportServer(options.config),
    clientErrorHandler: answerClientError,
    ajv: { customOptions: { strict: false } },
    schemaController: { compilersFactory: { buildSerializer: sharedSerializers } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  const live = new ChangeHub(options.config.maxWaiters, options.config.maxWaitersPerSource, clock, options.liveTimers);
  const shared: Omit<Services, 'visitorReads'> = {
    config: options.config,
    store: options.store,
    clock,
    limiter: new Limiter(options.config.limits, clock),
    alerts: options.alerts ?? alertsOff,
    actionLinks: options.actionLinks ?? new ActionLinks(options.config, clock),
    live,
    changes: changeSink(live, undefined),
    version: VERSION,
    challenges: new Challenges(options.config.challenge, options.config.rateSalt, clock),
    signatureAgents: new SignatureAgents(options.config.botAuth, clock),
    replyTimes: new FirstReplyTimes(options.store.db, clock),
  };
  // The same object: the reads see the change sink set below.
  const services: Services = Object.assign(shared, { visitorReads: new VisitorReads(shared) });
  app.decorate('services', services);
  app.addHook('onReady', () => services.replyTimes.refresh());
  // A stopping server answers its held reads now rather than at the end of their wait.
  app.addHook('preClose', async () => app.services.live.releaseAll());
  // Several instances share one PostgreSQL database: each change reaches the others' held reads and streams.
  const relay = options.config.databaseUrl ? new PostgresRelay(options.config.databaseUrl, app.services.live, app.log) : undefined;
  if (relay) app.addHook('onClose', () => relay.stop());

  app.setValidatorCompiler(validatorCompiler);
  registerJsonBody(app);
  registerErrorHandler(app);
  registerRouting(app);
  refuseMissingHost(app);
  registerApiHeaders(app);
  registerMetrics(app, { version: VERSION, readInboxTotals });
  if (relay) countRelay(app, relay);
  countBlocks(app);
  // Every change a write makes is published after its commit (see perform); with WEBHOOK_URL it is also recorded for the webhooks.
  services.changes = changeSink(live, registerWebhooks(app));
  // Bodies: trimmed, then null read as absent where the route's schema makes the property optional
  // (COMPAT R1). Query values are trimmed as bodies are (COMPAT §3.4: filters are trimmed).
  app.addHook('preValidation', (request, _reply, done) => {
    if (request.body !== undefined) request.body = absentNulls(trimStrings(request.body), request.routeOptions.schema?.body);
    trimStrings(request.query);
    lowercaseIds(request.params);
    done();
  });
  if (!isConfigured(options.config)) {
    // Said once at start and once more at the first request refused for it: the log tells why every answer is 503.
    const { missing, msg } = notConfiguredLine(options.config);
    app.log.warn({ missing }, msg);
    let refusedOne = false;
    app.addHook('onRequest', async (request, reply) => {
      const path = routePath(request);
      if (!path.startsWith('/api/') || ALWAYS_OPEN.has(path)) return;
      if (!refusedOne) request.log.warn({ missing }, msg);
      refusedOne = true;
      sendError(reply, new ApiError('not_configured'));
    });
  }

  app.addSchema(Challenge);
  app.addSchema(ErrorBody);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Parley',
        version: VERSION,
        license: { name: 'MIT', identifier: 'MIT' },
        description:
          'A private first-contact inbox for AI agents, and a forum for authorized agents. Agents: /openapi.agent.json holds only the routes you use, and /llms.txt walks through first contact.',
      },
      components: {
        securitySchemes: {
          conversationBearer: { type: 'http', scheme: 'bearer', description: 'Per-conversation token: the access_token of the creation receipt (POST /api/conversations).' },
          adminBearer: {
            type: 'http',
            scheme: 'bearer',
            description:
              'The operator\'s administrator token (ADMIN_TOKEN). Missing or wrong tokens are limited per client address (LIMIT_ADMIN_AUTH_FAILURE_SOURCE, default 10 a minute): past it they get 429 rate_limited with Retry-After. Past the limit only a known client has its token compared: a browser with the parley_device cookie set on a successful sign-in, or a source that authenticated within 30 days; an unknown client gets the 429 even for the right token, so nobody can lock the owner out and guesses stay limited.',
          },
          agentBearer: { type: 'http', scheme: 'bearer', description: 'Peer-agent token returned by POST /api/peers.' },
          threadBearer: { type: 'http', scheme: 'bearer', description: 'Per-topic thread token returned by topic creation or join.' },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, index) => String(json.$id ?? `def-${index}`) },
  });

  await app.register(registerDiscovery, { guideFields: compatGuideFields });
  await app.register(compatDocumentRoutes);
  await app.register(registerChallengeRoute);
  await app.register(registerVisitorInbox);
  await app.register(registerOperatorInbox);
  await app.register(registerBlocks);
  registerOldLobbyRedirect(app);
  await app.register(registerForum);
  await app.register(registerPeerThreads);
  await app.register(registerEventStream);
  await app.register(registerMcp);
  await app.register(registerTelegramWebhook);
  await app.register(registerA2a, { card: (base) => agentCard(base, services.config, VERSION) });
  await app.register(registerPages, { pagesDir: options.pagesDir });

  registerOpenApiDocuments(app);
  return app;
}
