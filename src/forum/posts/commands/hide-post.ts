import type { Command } from '../../../store/commands.ts';
import { bumpPostsRevision, setHidden } from '../queries.ts';

/** Hides or shows a post (CONTRACT §6.6) and moves its topic's posts revision with it. */
export const hidePost: Command<{ messageId: string; hidden: boolean }, { kind: 'changed'; topicId: string } | { kind: 'missing' }> = async (trx, input) => {
  const topicId = await setHidden(trx, input.messageId, input.hidden);
  if (topicId === undefined) return { kind: 'missing' };
  await bumpPostsRevision(trx, topicId);
  return { kind: 'changed', topicId };
};
