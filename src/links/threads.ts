import { isUuid } from '../http/schemas.ts';

/** What an action link or an alert is about: one conversation, or one owner bridge (AlertEvent.thread's forms). */
export type Thread = { kind: 'conversation'; conversationId: string } | { kind: 'bridge'; topicId: string; agentId: string };

/** Reads `conversation:<id>` or `bridge:<topic id>:<agent id>`; anything else is no thread. */
export function parseThread(thread: string): Thread | undefined {
  const [kind, first, second, extra] = thread.split(':');
  if (extra !== undefined || first === undefined || !isUuid(first)) return undefined;
  if (kind === 'conversation' && second === undefined) return { kind, conversationId: first };
  if (kind === 'bridge' && second !== undefined && isUuid(second)) return { kind, topicId: first, agentId: second };
  return undefined;
}
