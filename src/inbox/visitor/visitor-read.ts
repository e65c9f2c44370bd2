import type { Static } from '@sinclair/typebox';
import { ApiError } from '../../http/errors.ts';
import { isUuid } from '../../http/schemas.ts';
import type { Services } from '../../services.ts';
import { tokenMatches } from '../../tokens.ts';
import { perform, type WriteServices } from '../../writes/perform.ts';
import { markSeen } from '../commands/mark-seen.ts';
import { listMessages, type ConversationRow } from '../queries.ts';
import { visitorAccess } from './auth.ts';
import { ConversationRows } from './conversation-rows.ts';
import { presentVisitorConversation } from './presenters.ts';
import type { VisitorConversation } from './schemas.ts';

export interface VisitorView {
  /** The row read (again, when the read marked messages seen): its revision tags the answer. */
  conversation: ConversationRow;
  document: Static<typeof VisitorConversation>;
}

/**
 * The visitor's read of a conversation (GET /api/conversations/{id}), in the functions its route
 * and the MCP wait both run: the token check, then the conversation as the visitor sees it, the
 * operator's messages marked seen.
 */
export class VisitorReads {
  readonly rows: ConversationRows;

  constructor(private readonly services: WriteServices & Pick<Services, 'live' | 'clock'>) {
    this.rows = new ConversationRows(services.store, services.live);
  }

  /**
   * The conversation `token` opens. `id` is a UUID, lowercase: anything else is answered by the
   * router. A token of anything else, or an unknown conversation: the same 404 (CONTRACT §3.2).
   */
  async authorized(token: string | undefined, id: string): Promise<ConversationRow> {
    if (token === undefined) throw new ApiError('token_required');
    if (!isUuid(id)) throw new ApiError('conversation_not_found');
    const conversation = await this.rows.find(id);
    if (!conversation || !tokenMatches(token, conversation.token_hash)) throw new ApiError('conversation_not_found');
    visitorAccess(conversation, this.services.clock.now());
    return conversation;
  }

  /** The conversation with every message, presented; the operator's messages not yet seen are marked seen first. */
  async view(conversation: ConversationRow, typicalFirstReply: number | null): Promise<VisitorView> {
    let messages = await listMessages(this.services.store.db, conversation.id);
    if (messages.some((message) => message.role === 'admin' && message.seen_at === null)) {
      const marked = await perform(this.services, markSeen, { conversationId: conversation.id, reader: 'visitor', now: this.services.clock.now() });
      ({ conversation, messages } = marked.result);
    }
    return { conversation, document: presentVisitorConversation(conversation, messages, typicalFirstReply) };
  }
}
