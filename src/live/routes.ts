import { PassThrough } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { requireAdmin } from '../http/auth.ts';
import { ADMIN_BEARER, responses } from '../http/schemas.ts';
import { EVENT_TYPES, type LiveEvent } from './events.ts';

/** A stream whose client reads less than this far behind is dropped: it may reconnect and resume. */
const MAX_UNREAD_BYTES = 1024 * 1024;

const STREAM_DESCRIPTION =
  'Server-sent events (text/event-stream), one per change after its commit: ' +
  `${EVENT_TYPES.join(', ')}. Each has an id and JSON data with the type, the ids it concerns ` +
  '(conversation_id, message_id, topic_id, agent_id) and the time, and nothing else: no text, no name, no token. ' +
  'Send the id of the last event you received as Last-Event-ID to resume after a reconnect (the last 10 minutes, ' +
  'or the last 1,000 events, are kept; an id from before a restart gets every event kept). A comment line every ' +
  'EVENTS_HEARTBEAT_SECONDS (15) keeps proxies from closing the stream. EventSource cannot send the token: read it with fetch.';

/** The SSE frame of an event: the data holds the type, the ids and the time, never the event's id twice. */
function frame({ id, ...data }: LiveEvent): string {
  return `id: ${id}\nevent: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** GET /api/admin/events: the operator's event stream. */
export const registerEventStream: FastifyPluginAsyncTypebox = async (app) => {
  const { live, config } = app.services;
  const heartbeatMs = config.eventsHeartbeatSeconds * 1000;
  const open = new Set<PassThrough>();
  // One timer for every open stream.
  let heartbeat: NodeJS.Timeout | undefined;
  const beat = () => {
    for (const stream of open) stream.write(': heartbeat\n\n');
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
      const send = (text: string) => {
        if (stream.writableLength > MAX_UNREAD_BYTES) stream.destroy();
        else stream.write(text);
      };
      const unsubscribe = live.subscribe((event) => send(frame(event)));
      open.add(stream);
      heartbeat ??= setInterval(beat, heartbeatMs).unref();
      stream.once('close', () => {
        unsubscribe();
        open.delete(stream);
        if (open.size === 0 && heartbeat) {
          clearInterval(heartbeat);
          heartbeat = undefined;
        }
      });
      // The server closes a connection on which nothing moves for twice the request timeout; this
      // one moves at every heartbeat, so it is let idle for three of them instead.
      request.raw.socket?.setTimeout?.(3 * heartbeatMs);
      stream.write(': stream open\n\n');
      const lastEventId = request.headers['last-event-id'];
      if (lastEventId !== undefined) for (const event of live.events.after(lastEventId)) send(frame(event));
      reply.header('X-Accel-Buffering', 'no');
      return reply.type('text/event-stream; charset=utf-8').send(stream);
    },
  );
};
