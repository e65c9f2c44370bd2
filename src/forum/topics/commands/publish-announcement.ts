import { sha256 } from '../../../tokens.ts';
import { defineWrite } from '../../../writes/write.ts';
import { insertPost, moderatorSender } from '../../posts/queries.ts';
import { moderatorTopic } from '../moderator-topic.ts';
import { findTopicByClientToken, insertTopic } from '../queries.ts';
import type { Announcement } from '../schemas.ts';

export interface PublishAnnouncementInput {
  announcement: Announcement;
  moderatorName: string;
  now: number;
}

/** A retried announcement is found through a hash of its client_message_id kept on the topic. */
const clientKey = ({ announcement }: PublishAnnouncementInput) =>
  announcement.client_message_id === undefined ? null : sha256(`announcement:${announcement.client_message_id}`);

const fingerprint = ({ announcement }: PublishAnnouncementInput) => sha256(JSON.stringify([announcement.title, announcement.summary ?? '', announcement.message]));

/** An announcement (CONTRACT §6.6): a listed, read-only topic in announcements with the moderator's first post. */
export const publishAnnouncement = defineWrite({
  name: 'announcement',
  retry: {
    async find(db, input: PublishAnnouncementInput) {
      const key = clientKey(input);
      const existing = key === null ? undefined : await findTopicByClientToken(db, key);
      if (!existing) return undefined;
      return existing.fingerprint === fingerprint(input) ? { kind: 'same', result: { topicId: existing.id } } : { kind: 'other' };
    },
    conflict: 'client_message_id_conflict',
  },

  async run(trx, input) {
    const { announcement, now } = input;
    const topic = moderatorTopic({
      category: 'announcements',
      title: announcement.title,
      summary: announcement.summary ?? '',
      postingMode: 'moderator_only',
      now,
      clientTokenHash: clientKey(input),
      fingerprint: fingerprint(input),
    });
    await insertTopic(trx, topic);
    const sender = moderatorSender(input.moderatorName);
    await insertPost(trx, { topicId: topic.id, sender, body: announcement.message, clientMessageId: announcement.client_message_id ?? null, now }, (reason) => {
      throw new Error(`a new announcement refused its first post (${reason})`);
    });
    return { topicId: topic.id };
  },
  refusals: {},
  changes: ({ topicId }) => [{ type: 'forum.topic', topic_id: topicId }],
});
