import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { isoTime } from '../clock.ts';
import { requireAdmin } from '../http/auth.ts';
import { ADMIN_BEARER, responses } from '../http/schemas.ts';
import { EVENT_TYPES, type LiveEvent } from './events.ts';

/** Events taken from the ring at a time while the stream has room: a replay is written as its reader reads. */
const BATCH = 64;

/** The control event that tells a reader it missed events it cannot be sent: refetch your state. */
export const RESET_EVENT = 'stream.reset';

const STREAM_DESCRIPTION =
  'Server-sent events (text/event-stream), one per change after its commit: ' +
  `${EVENT_TYPES.join(', ')}. Each has an id and JSON data with the type, the ids it concerns ` +
  '(conversation_id, message_id, topic_id, agent_id) and the time, and nothing else: no text, no name, no token. ' +
  'Send the id of the last event you received as Last-Event-ID to resume after a reconnect (the last 10 minutes, ' +
  'or the last 1,000 events, are kept), sent as fast as you read. When the events after it are no longer kept (an old id, ' +
  `an id from before a restart or from another instance, or a reader that fell that far behind), a "${RESET_EVENT}" event ` +
  'comes instead (its id is the latest event\'s, and its data the type and the time): refetch the state you show, then ' +
  'read on. A comment line every ' +
  'EVENTS_HEARTBEAT_SECONDS (15) keeps proxies from closing the stream. EventSource cannot send the token: read it with fetch.';

/** The SSE frame of an event: the data holds the type, the ids and the time, never the event's id twice. */
function frame({ id, ...data }: LiveEvent): string {
  return `id: ${id}\nevent: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function resetFrame(id: string | undefined, time: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${RESET_EVENT}\ndata: ${JSON.stringify({ type: RESET_EVENT, time })}\n\n`;
}

/** GET /api/admin/events: the operator's event stream. */
export const registerEventStream: FastifyPluginAsyncTypebox = async (app) => {
  const { live, config, clock } = app.services;
  const heartbeatMs = config.eventsHeartbeatSeconds * 1000;
  const open = new Set<PassThrough>();
  // One timer for every open stream.
  let stopHeartbeat: (() => void) | undefined;
  // A stream with output waiting is not idle: no heartbeat adds to it.
  const beat = () => {
    for (const stream of open) if (!stream.writableNeedDrain) stream.write(': heartbeat\n\n');
  };
  app.addHook('preClose', async () => {
    for (const stream of open) stream.end();
  });

  app.get(
    '/api/admin/events',
    {
      schema: {
        summary: 'The operator\'s event stream (server-sent events)',
        description: STREAM_DESCRIPTION,
        tags: ['operator'],
        security: ADMIN_BEARER,
        headers: Type.Object({
          'last-event-id': Type.Optional(Type.String({ maxLength: 100, description: 'The id of the last event received, to resume after it.' })),
        }),
        response: responses({ 200: Type.String({ description: 'text/event-stream: one "id", "event" and "data" block per event, and comment lines.' }) }, [400, 401, 429]),
      },
      preValidation: requireAdmin,
    },
    async (request, reply) => {
      const stream = new PassThrough();
      const lastEventId = request.headers['last-event-id'];
      const resumeAt = lastEventId === undefined ? live.events.next : live.events.resumeAfter(lastEventId);
      let next = resumeAt ?? live.events.next;
      let reset = resumeAt === undefined;
      // Writes from the ring while the stream has room, and again at each 'drain': a replay or a
      // burst never piles up in memory, and a reader the ring has left behind is told to refetch.
      const pump = () => {
        while (!stream.writableNeedDrain && !stream.writableEnded && !stream.destroyed) {
          if (reset) {
            reset = false;
            next = live.events.next;
            stream.write(resetFrame(live.events.latestId, isoTime(clock.now())));
            continue;
          }
          const events = live.events.from(next, BATCH);
          if (events === undefined) reset = true;
          else if (events.length === 0) return;
          else {
            next += events.length;
            for (const event of events) stream.write(frame(event));
          }
        }
      };
      const unsubscribe = live.subscribe(pump);
      stream.on('drain', pump);
      open.add(stream);
      stopHeartbeat ??= live.timers.every(heartbeatMs, beat);
      stream.once('close', () => {
        unsubscribe();
        open.delete(stream);
        if (open.size === 0 && stopHeartbeat) {
          stopHeartbeat();
          stopHeartbeat = undefined;
        }
      });
      // The server closes a connection on which nothing moves for twice the request timeout; this
      // one moves at every heartbeat, so it is let idle for three of them instead.
      request.raw.socket?.setTimeout?.(3 * heartbeatMs);
      stream.write(': stream open\n\n');
      pump();
      reply.header('X-Accel-Buffering', 'no');
      return reply.type('text/event-stream; charset=utf-8').send(stream);
    },
  );
};
