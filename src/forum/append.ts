import type { Kysely } from 'kysely';
import type { Clock } from '../clock.ts';
import type { Database } from '../store/schema.ts';
import { writeOnce } from '../store/write-once.ts';
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
export function appendPost(db: Db, request: AppendPost): Promise<{ messageId: string; duplicate: boolean }> {
  const { topicId, sender, body, clientMessageId } = request;
  return writeOnce(db, {
    body,
    ...(clientMessageId === null ? {} : { findEarlier: () => findPostByClientId(db, topicId, sender, clientMessageId) }),
    write: async (trx) => {
      const id = await insertPost(trx, { topicId, sender, body, clientMessageId, now: request.clock.now() });
      await request.charge?.(trx);
      return id;
    },
  });
}
