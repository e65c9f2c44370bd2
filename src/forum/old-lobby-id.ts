import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { LOBBY_TOPIC_ID } from './lobby.ts';

/**
 * Links to the lobby from before it moved to its fixed id (migration 0006_fixed_lobby) answer a
 * permanent redirect to the fixed id. 0006 kept no record of the old id, a UUIDv7 made as the forum
 * was first seeded, whose first 48 bits are that moment in milliseconds; 0006 kept the lobby's
 * created_at, the same moment. So an id that names no topic and was made within OLD_LOBBY_WINDOW_MS
 * after the lobby's creation is the old lobby's: no other topic could be made that early, before
 * the first server started listening.
 */
const OLD_LOBBY_WINDOW_MS = 10_000;
const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The path parameters that name a topic: the forum's own routes and pages, and the reference's peer-thread routes. */
const topicParam = (request: FastifyRequest) => {
  const params = request.params as { topic_id?: unknown; thread_id?: unknown } | undefined;
  const id = params?.topic_id ?? params?.thread_id;
  return typeof id === 'string' ? id : undefined;
};

/** Whether the UUIDv7 `id` was made within OLD_LOBBY_WINDOW_MS after the lobby's creation. */
function madeWithLobby(lobbyCreatedAt: number | undefined, id: string): boolean {
  const made = Number.parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
  return lobbyCreatedAt !== undefined && made >= lobbyCreatedAt && made <= lobbyCreatedAt + OLD_LOBBY_WINDOW_MS;
}

export function registerOldLobbyRedirect(app: FastifyInstance): void {
  const { db } = app.services.store;
  let lobbyCreatedAt: number | undefined;
  const lobbyCreation = async () => {
    if (lobbyCreatedAt !== undefined) return lobbyCreatedAt;
    const lobby = await db.selectFrom('forum_topics').select('created_at').where('id', '=', LOBBY_TOPIC_ID).executeTakeFirst();
    // Kept once read: the lobby's creation never moves.
    lobbyCreatedAt = lobby === undefined ? undefined : Number(lobby.created_at);
    return lobbyCreatedAt;
  };
  /** Whether `id` is the old lobby's; then the reply is its redirect. */
  const redirectedOldLobby = async (request: FastifyRequest, reply: FastifyReply, id: string): Promise<boolean> => {
    if (!madeWithLobby(await lobbyCreation(), id)) return false;
    if ((await db.selectFrom('forum_topics').select('id').where('id', '=', id).executeTakeFirst()) !== undefined) return false;
    const queryAt = request.url.indexOf('?');
    const [path, query] = queryAt === -1 ? [request.url, ''] : [request.url.slice(0, queryAt), request.url.slice(queryAt)];
    void reply.code(308).header('location', `${path.replace(new RegExp(id, 'i'), LOBBY_TOPIC_ID)}${query}`).send();
    return true;
  };
  // A callback hook: every request passes here, and only a UUIDv7 topic id goes on to the store.
  app.addHook('onRequest', (request, reply, done) => {
    const id = topicParam(request)?.toLowerCase();
    // Once the lobby's creation is known, only ids made right after it cost a promise.
    const ruledOut = lobbyCreatedAt !== undefined && !madeWithLobby(lobbyCreatedAt, id ?? '');
    if (id === undefined || id === LOBBY_TOPIC_ID || ruledOut || !UUID_V7.test(id)) {
      done();
      return;
    }
    redirectedOldLobby(request, reply, id).then((redirected) => {
      if (!redirected) done();
    }, done);
  });
}
