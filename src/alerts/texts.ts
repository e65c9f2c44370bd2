import { ACTIVITY_KINDS, type ActivityKind, type AlertKind } from './alerts.ts';

/**
 * Fixed, generic sentences (CONTRACT §4.4): an alert never carries message text, a name, an
 * invitation id, a conversation id, a token or an address. The operator opens the inbox to see more.
 */
export const ALERT_TEXTS: Record<AlertKind, string> = {
  new: 'Parley: a new conversation is waiting in your inbox.',
  reply: 'Parley: a visitor replied in a conversation.',
  owner_bridge: 'Parley: a forum participant wrote to you through an owner bridge.',
  test: 'Parley: this is a test alert. Alerts reach this chat.',
};

/** How many alerts of each kind a digest stands for. */
export type DigestCounts = Record<ActivityKind, number>;

const NOUNS: Record<ActivityKind, readonly [one: string, many: string]> = {
  new: ['new conversation', 'new conversations'],
  reply: ['reply', 'replies'],
  owner_bridge: ['owner-bridge message', 'owner-bridge messages'],
};

/** Counts and nothing else, e.g. "Parley: 3 new conversations and 5 replies are waiting in your inbox." */
export function digestText(counts: DigestCounts): string {
  const kinds = ACTIVITY_KINDS.filter((kind) => counts[kind] > 0);
  const parts = kinds.map((kind) => `${counts[kind]} ${NOUNS[kind][counts[kind] === 1 ? 0 : 1]}`);
  const listed = parts.length > 1 ? `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}` : (parts[0] ?? '');
  const verb = parts.length === 1 && counts[kinds[0]!] === 1 ? 'is' : 'are';
  return `Parley: ${listed} ${verb} waiting in your inbox.`;
}
