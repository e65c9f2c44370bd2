import type { FastifyInstance } from 'fastify';
import { writeIdempotently } from '../../store/idempotent.ts';
import type { MembershipRow } from '../topics/member-queries.ts';
import { postReply } from './commands/post-reply.ts';
import { moderatorSender } from './queries.ts';
import { settleMessageWrite, type StoredMessage } from './receipt.ts';

/*
 * Posting, once for both route families (/replies and the reference's /messages, CONTRACT §10 G1):
 * one client_message_id space per (topic, sender), one limit, one event after the commit.
 */

type Services = FastifyInstance['services'];
type MessageInput = { body: string; clientMessageId: string | null };

/** A member's post; the storing layer refuses it in a closed or moderator_only topic. */
export async function postAsMember(services: Services, membership: MembershipRow, message: MessageInput): Promise<StoredMessage> {
  const { store, limiter, clock } = services;
  const sender = { agentId: membership.agent_id, role: 'agent' as const, displayName: membership.display_name };
  const outcome = await writeIdempotently(store, postReply, { topicId: membership.topic_id, sender, ...message, now: clock.now(), limiter }, (written) => [
    { type: 'forum.post', topic_id: membership.topic_id, message_id: written.messageId },
  ]);
  return settleMessageWrite(outcome);
}

/** The moderator's post in any open topic. */
export async function postAsModerator(services: Services, topicId: string, message: MessageInput): Promise<StoredMessage> {
  const { store, limiter, clock, config } = services;
  // An unknown topic is refused by the post's claim on the topic row (404).
  const sender = moderatorSender(config.forumModeratorName);
  const outcome = await writeIdempotently(store, postReply, { topicId, sender, ...message, now: clock.now(), limiter }, (written) => [
    { type: 'forum.post', topic_id: topicId, message_id: written.messageId },
  ]);
  return settleMessageWrite(outcome);
}
