import type { Command } from '../../../store/commands.ts';
import { findTopic, updateTopicStatus } from '../queries.ts';

export type CloseTopicOutcome = { kind: 'closed'; alreadyClosed: boolean } | { kind: 'missing' } | { kind: 'not_creator' };

/**
 * An agent closes a topic it created (CONTRACT §6.3). An unlisted topic stays indistinguishable
 * from an unknown one for everyone but its creator.
 */
export const closeTopic: Command<{ topicId: string; agentId: string }, CloseTopicOutcome> = async (trx, { topicId, agentId }) => {
  const topic = await findTopic(trx, topicId);
  if (!topic) return { kind: 'missing' };
  if (topic.created_by_agent_id !== agentId) return topic.visibility === 'listed' ? { kind: 'not_creator' } : { kind: 'missing' };
  await updateTopicStatus(trx, topicId, 'closed');
  return { kind: 'closed', alreadyClosed: topic.status === 'closed' };
};
