import type { Kysely } from 'kysely';
import { findBridge, listBridgeMessages } from '../forum/bridges/queries.ts';
import { UNTIL_LIFTED } from '../blocks/queries.ts';
import { findConversation, listMessages } from '../inbox/queries.ts';
import type { Database } from '../store/schema.ts';
import { conversationActions, type ThreadView } from './page-view.ts';
import type { Thread } from './threads.ts';

type Db = Kysely<Database>;

const counted = (count: number) => `${count} message${count === 1 ? '' : 's'}`;

const STATUS_WORDS: Record<string, string> = { open: 'Open', closed: 'Closed', spam: 'Marked as spam' };

/** The conversation's own block, when one holds at `now` (a source block is the console's to show). */
function blockNote(blockedUntil: number | null, now: number): string {
  if (blockedUntil === null || blockedUntil <= now) return '';
  return blockedUntil === UNTIL_LIFTED ? ' · Blocked until lifted' : ` · Blocked until ${new Date(blockedUntil).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** What the link page shows of a thread, read in two indexed queries; undefined when the thread is gone. */
export async function readThreadView(db: Db, thread: Thread, now: number): Promise<ThreadView | undefined> {
  if (thread.kind === 'conversation') {
    const conversation = await findConversation(db, thread.conversationId);
    if (!conversation) return undefined;
    const messages = await listMessages(db, conversation.id);
    return {
      heading: `Conversation with ${conversation.name}`,
      subheading: `${STATUS_WORDS[conversation.status] ?? conversation.status} · ${counted(conversation.message_count)}${blockNote(conversation.blocked_until === null ? null : Number(conversation.blocked_until), now)}`,
      messages: messages.map((message) => ({
        fromOperator: message.role === 'admin',
        author: message.role === 'admin' ? 'You' : conversation.name,
        body: message.body,
        at: Number(message.created_at),
      })),
      canReply: conversation.status === 'open',
      actions: conversationActions(conversation.status),
      blockable: true,
    };
  }
  const key = { topicId: thread.topicId, agentId: thread.agentId };
  if (!(await findBridge(db, key))) return undefined;
  const names = await db
    .selectFrom('forum_topics')
    .innerJoin('peer_agents', (join) => join.on('peer_agents.id', '=', thread.agentId))
    .select(['forum_topics.title', 'peer_agents.display_name'])
    .where('forum_topics.id', '=', thread.topicId)
    .executeTakeFirst();
  const agent = names?.display_name ?? 'The participant';
  const messages = await listBridgeMessages(db, key);
  return {
    heading: `Owner bridge with ${agent}`,
    subheading: `In the topic “${names?.title ?? ''}” · ${counted(messages.length)}`,
    messages: messages.map((message) => ({ fromOperator: message.role === 'operator', author: message.role === 'operator' ? 'You' : agent, body: message.body, at: Number(message.created_at) })),
    canReply: true,
    actions: [],
    blockable: false,
  };
}
