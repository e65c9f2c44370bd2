import type { Command } from '../../../store/commands.ts';
import type { TopicStatus } from '../../tables.ts';
import { updateTopicStatus } from '../queries.ts';

export type SetTopicStatusOutcome = { kind: 'changed'; topicId: string; status: TopicStatus } | { kind: 'missing' };

/** The moderator opens or closes any topic (CONTRACT §6.6). */
export const setTopicStatus: Command<{ topicId: string; status: TopicStatus }, SetTopicStatusOutcome> = async (trx, input) => {
  const topic = await updateTopicStatus(trx, input.topicId, input.status);
  return topic ? { kind: 'changed', topicId: topic.id, status: topic.status } : { kind: 'missing' };
};
