import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest, type FastifyServerOptions } from 'fastify';
import { pino, type Bindings, type ChildLoggerOptions, type DestinationStream, type LevelWithSilent, type LoggerOptions, type LogFn } from 'pino';
import type { LogLevel } from './config.ts';
import { routePattern } from './http/routing.ts';

/** Paths whose last segment is a capability (the signed action links): a line shows the prefix only. */
const CAPABILITY_PATH = /(\/act\/)[^/]*/;

/** Every line is pino's JSON: no credential or client address reaches one, and token-named fields anywhere are redacted. */
function pinoOptions(level: string): LoggerOptions {
  return {
    level,
    redact: {
      paths: [
        'req.headers.authorization',
        'headers.authorization',
        'authorization',
        '*.authorization',
        'access_token',
        '*.access_token',
        '*.client_access_token',
        '*.agent_access_token',
        '*.thread_access_token',
        '*.client_thread_access_token',
        '*.invitation_code',
        '*.token',
        '*.bot_token',
      ],
      censor: '[redacted]',
    },
    serializers: {
      req: (request: { method: string; url: string; id: string }) => ({
        method: request.method,
        url: request.url.split('?')[0]?.replace(CAPABILITY_PATH, '$1[redacted]'),
        id: request.id,
      }),
      res: (reply: { statusCode: number }) => ({ statusCode: reply.statusCode }),
    },
  };
}

/** Fastify's pino logger; requests are logged by RequestLogController. */
export function loggerOptions(level = 'info', stream?: DestinationStream): FastifyServerOptions['logger'] {
  return { ...pinoOptions(level), ...(stream ? { stream } : {}) };
}

/** A line written before the app (and its logger) exists, such as where the generated secrets are: JSON like every other. */
export function logAtStart(level: LogLevel, details: object, message: string): void {
  pino(pinoOptions(level)).info(details, message);
}

/**
 * One line per request at info, once it is answered: method, route pattern, status and duration.
 * The route is the pattern, never the target, whose path and query a client fills as it likes.
 * Arrival is logged at debug only, for a request that never completes.
 */
export class RequestLogController extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (!error && !isLevelOn(reply.log, 'info')) return;
    const line = { method: request.method, route: routePattern(request), status: reply.statusCode, durationMs: Math.round(reply.elapsedTime * 100) / 100 };
    // The response stream failed: its code says why; its message may quote what was being sent.
    if (error) reply.log.error({ ...line, err: { type: error.name, code: (error as NodeJS.ErrnoException).code } }, 'request errored');
    else reply.log.info(line, 'request completed');
  }

  /** A client that leaves a stream it was reading (the operator's event stream) is routine: debug, not info. */
  override streamError(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_STREAM_PREMATURE_CLOSE') super.streamError(error, request, reply);
    else reply.log.debug({ route: routePattern(request) }, 'stream closed by its client');
  }
}

/** Whether `logger` writes lines at `level` (pino's loggers and LazyChildLogger say; others are asked to write). */
function isLevelOn(logger: FastifyBaseLogger, level: Method): boolean {
  return (logger as { isLevelEnabled?: (level: string) => boolean }).isLevelEnabled?.(level) ?? true;
}

type Method = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger, as Fastify makes one per request (its id bound), but made only when a line is
 * written at a level that is on: at the default level most requests write none, and a pino child
 * costs more than the rest of a small request's logging. Lines carry the same bindings as before.
 */
class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;

  constructor(
    private readonly parent: FastifyBaseLogger & { levels?: { values: Record<string, number> } },
    private readonly bindings: Bindings,
    private readonly options: ChildLoggerOptions | undefined,
  ) {}

  get level(): LevelWithSilent | string {
    return this.#child?.level ?? this.options?.level ?? this.parent.level;
  }

  set level(level: LevelWithSilent | string) {
    this.#real().level = level;
  }

  // Prototype methods, not arrow-function fields: a logger is made per request, so each field would be a closure per request.
  fatal(...args: Parameters<LogFn>): void {
    this.#write('fatal', args);
  }
  error(...args: Parameters<LogFn>): void {
    this.#write('error', args);
  }
  warn(...args: Parameters<LogFn>): void {
    this.#write('warn', args);
  }
  info(...args: Parameters<LogFn>): void {
    this.#write('info', args);
  }
  debug(...args: Parameters<LogFn>): void {
    this.#write('debug', args);
  }
  trace(...args: Parameters<LogFn>): void {
    this.#write('trace', args);
  }
  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }

  isLevelEnabled(level: string): boolean {
    // Fastify's logger when logging is off is no pino logger and has no levels: it is asked to write, and writes nothing.
    const values = this.parent.levels?.values;
    if (values === undefined) return true;
    return (values[level] ?? 0) >= (values[this.level] ?? Number.POSITIVE_INFINITY);
  }

  #write(method: Method, args: Parameters<LogFn>): void {
    if (!this.isLevelEnabled(method)) return;
    Reflect.apply(this.#real()[method], this.#child, args);
  }

  #real(): FastifyBaseLogger {
    return (this.#child ??= this.parent.child(this.bindings, this.options));
  }
}

/** Fastify's childLoggerFactory: each request's logger is a LazyChildLogger. */
export const lazyChildLoggers: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new LazyChildLogger(logger as FastifyBaseLogger & { levels?: { values: Record<string, number> } }, bindings, options);
