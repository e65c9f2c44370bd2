import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../http/errors.ts';
import { topicKey } from '../../live/hub.ts';
import { runCommand } from '../../store/commands.ts';
import { writeIdempotently } from '../../store/idempotent.ts';
import type { AgentRow } from '../peers/queries.ts';
import type { TopicStatus, TopicVisibility } from '../tables.ts';
import { closeTopic } from './commands/close-topic.ts';
import { createTopic, type CreateTopicInput } from './commands/create-topic.ts';
import { joinTopic } from './commands/join-topic.ts';
import { leaveTopic } from './commands/leave-topic.ts';
import { setTopicStatus } from './commands/set-topic-status.ts';
import { threadToken, type ThreadToken } from './commands/thread-token.ts';
import { findCategory, findTopic } from './queries.ts';

/*
 * Taking part in a topic, once for both route families (/api/forum/topics… and the reference's
 * /api/peer-threads…, CONTRACT §10 G1): the checks, the command and the change it publishes after
 * its commit. The routes differ only in their presenters.
 */

type Services = FastifyInstance['services'];

/** A membership's token, and whether the request was an identical retry. */
export interface MembershipReceipt {
  topicId: string;
  /** The topic's visibility: only a listed topic has a public page. */
  visibility: TopicVisibility;
  token: ThreadToken;
  duplicate: boolean;
}

const tokenConflict = () => new ApiError('client_token_conflict', { message: 'This client thread token is already in use for a different request.' });

/** R2: the slug trimmed (as every body field) and lowercased; empty or absent is general. */
export function categorySlug(category: string | undefined): string {
  return category?.toLowerCase() || 'general';
}

/** Creates a topic (with its first post when the input has one); the creator becomes its first member. */
export async function createTopicAs(
  services: Services,
  agent: AgentRow,
  topic: CreateTopicInput['topic'],
  clientToken: string | undefined,
): Promise<MembershipReceipt> {
  const { store, limiter, clock } = services;
  const category = await findCategory(store.db, topic.category);
  if (!category) throw new ApiError('unknown_category', { field: 'category' });
  if (category.agent_can_create !== 1) throw new ApiError('category_closed_to_agents');
  const token = threadToken(clientToken);
  const outcome = await writeIdempotently(store, createTopic, { agent, topic, token, limiter, now: clock.now() }, (written) => [
    { type: 'forum.topic', topic_id: written.topicId },
  ]);
  if (outcome.kind === 'conflict' || outcome.kind === 'token_in_use') throw tokenConflict();
  return { topicId: outcome.result.topicId, visibility: topic.visibility ?? 'listed', token, duplicate: outcome.kind === 'duplicate' };
}

/** Joins an open topic in participants mode; a member who left joins again with a new (or the same client) token. */
export async function joinTopicAs(services: Services, agent: AgentRow, topicId: string, clientToken: string | undefined): Promise<MembershipReceipt> {
  const { store, limiter, clock, live } = services;
  const topic = await findTopic(store.db, topicId);
  if (!topic || topic.status !== 'open') throw new ApiError('topic_not_found');
  if (topic.posting_mode !== 'participants') throw new ApiError('read_only_topic');
  const token = threadToken(clientToken);
  const outcome = await writeIdempotently(store, joinTopic, { topicId, agentId: agent.id, token, limiter, now: clock.now() });
  switch (outcome.kind) {
    case 'missing':
      throw new ApiError('topic_not_found');
    case 'conflict':
    case 'already_member':
      throw new ApiError('already_member');
    case 'token_in_use':
      throw tokenConflict();
  }
  if (outcome.kind === 'written') live.publish(topicKey(topicId));
  return { topicId, visibility: topic.visibility, token, duplicate: outcome.kind === 'duplicate' };
}

/** Ends a membership; true when it had already ended (a retry). */
export async function leaveTopicAs(services: Services, membership: { topic_id: string; agent_id: string }): Promise<boolean> {
  const outcome = await runCommand(services.store, leaveTopic, { topicId: membership.topic_id, agentId: membership.agent_id });
  if (outcome.kind === 'left') services.live.publish(topicKey(membership.topic_id));
  return outcome.kind === 'already_left';
}

/** The creator closes its topic; true when it was closed already. */
export async function closeTopicAs(services: Services, agent: AgentRow, topicId: string): Promise<boolean> {
  const outcome = await runCommand(services.store, closeTopic, { topicId, agentId: agent.id }, (closed) =>
    closed.kind === 'closed' ? [{ type: 'forum.topic', topic_id: topicId }] : [],
  );
  if (outcome.kind === 'missing') throw new ApiError('topic_not_found');
  if (outcome.kind === 'not_creator') throw new ApiError('forbidden', { message: 'Only the agent that created this topic may close it.' });
  return outcome.alreadyClosed;
}

/** The moderator opens or closes any topic; the outcome says whether it already had that status. */
export async function setTopicStatusAsModerator(services: Services, topicId: string, status: TopicStatus) {
  const outcome = await runCommand(services.store, setTopicStatus, { topicId, status }, (changed) =>
    changed.kind === 'changed' ? [{ type: 'forum.topic', topic_id: changed.topicId }] : [],
  );
  if (outcome.kind === 'missing') throw new ApiError('topic_not_found');
  return { topicId: outcome.topicId, status: outcome.status, duplicate: outcome.previous === outcome.status };
}
