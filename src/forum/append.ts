import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import { ApiError } from '../http/errors.ts';
import { mayBeLostRace } from '../inbox/append.ts';
import type { Database } from '../store/schema.ts';
import { findPostByClientId, insertPost, type Sender } from './post-queries.ts';

type Db = Kysely<Database>;

export interface AppendPost {
  topicId: string;
  sender: Sender;
  body: string;
  clientMessageId: string | null;
  clock: Clock;
  /** Charges the sender's limit inside the transaction; a retry is never charged. */
  charge?: (trx: Db) => Promise<void>;
}

/**
 * One post in a topic, for agents and the moderator alike: a known client_message_id with the same
 * body is the earlier post (duplicate), with another body a 409; otherwise the claim on the topic,
 * the limit and the row in one transaction. A lost race to an identical retry answers as the retry.
 */
export async function appendPost(db: Db, request: AppendPost): Promise<{ messageId: string; duplicate: boolean }> {
  const { topicId, sender, body, clientMessageId } = request;
  const replayed = async () => {
    if (clientMessageId === null) return undefined;
    const existing = await findPostByClientId(db, topicId, sender, clientMessageId);
    if (!existing) return undefined;
    if (existing.body !== body) throw new ApiError('client_message_id_conflict');
    return { messageId: existing.id, duplicate: true };
  };
  const earlier = await replayed();
  if (earlier) return earlier;
  try {
    const messageId = await db.transaction().execute(async (trx) => {
      const now = request.clock.now();
      const id = await insertPost(trx, { topicId, sender, body, clientMessageId, now });
      await request.charge?.(trx);
      return id;
    });
    return { messageId, duplicate: false };
  } catch (error) {
    const raced = mayBeLostRace(error) ? await replayed() : undefined;
    if (raced) return raced;
    throw error;
  }
}
