import type { Command } from '../../../store/commands.ts';
import type { TopicStatus } from '../../tables.ts';
import { findTopic, updateTopicStatus } from '../queries.ts';

export type SetTopicStatusOutcome = { kind: 'changed'; topicId: string; status: TopicStatus; previous: TopicStatus } | { kind: 'missing' };

/** The moderator opens or closes any topic (CONTRACT §6.6); the previous status tells a retry (duplicate) apart. */
export const setTopicStatus: Command<{ topicId: string; status: TopicStatus }, SetTopicStatusOutcome> = async (trx, input) => {
  const before = await findTopic(trx, input.topicId);
  const topic = before && (await updateTopicStatus(trx, input.topicId, input.status));
  return before && topic ? { kind: 'changed', topicId: topic.id, status: topic.status, previous: before.status } : { kind: 'missing' };
};
