/**
 * The benchmark's baseline: a bare Fastify server with one trivial JSON route and Parley's logger
 * settings at the same level, so the ratios measure what Parley adds on top of the framework.
 */
import Fastify from 'fastify';
import { loggerOptions } from '../src/logging.ts';

const app = Fastify({ logger: loggerOptions(process.env.LOG_LEVEL ?? 'warn') });
app.get('/baseline', async () => ({ status: 'ready' }));

const shutdown = async () => {
  await app.close();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
