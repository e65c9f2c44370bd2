import type { BlockRecord, OperatorConversation, RelatedToConversation } from '../api-types.ts';
import { byId, el, errorText, formatTime } from '../dom.ts';
import { call } from './api.ts';
import { conversationUrl, followInPlace } from './navigation.ts';
import { state } from './state.ts';

function fact(term: string, value: Node | string): HTMLElement[] {
  return [el('dt', { text: term }), typeof value === 'string' ? el('dd', { text: value }) : el('dd', {}, value)];
}

function blockWords(block: BlockRecord): string {
  const what = block.scope === 'source' ? (block.widened ? 'its source (/24)' : 'its source') : 'this conversation';
  return `${what}, ${block.expires_at ? `until ${formatTime(block.expires_at)}` : 'until lifted'}`;
}

/** What the visitor said about themselves and when they wrote; the blocks and the same source's conversations follow from the API. */
function renderFacts(data: OperatorConversation, blocks: BlockRecord[] | null): void {
  const { conversation, messages } = data;
  const lastVisitor = [...messages].reverse().find((message) => message.role === 'visitor');
  const blockList = blocks === null ? 'unknown' : blocks.length === 0 ? 'none' : el('ul', { className: 'plain' }, ...blocks.map((block) => el('li', { text: blockWords(block) })));
  byId('visitor-facts').replaceChildren(
    ...fact('Name', conversation.name),
    ...fact('Invitation id', conversation.invitation_id ?? 'none'),
    ...fact('First contact', formatTime(conversation.created_at)),
    ...fact('Last contact', formatTime(lastVisitor?.created_at ?? conversation.created_at)),
    ...fact('Verified origin', conversation.verified_origin ?? 'none'),
    ...fact('Blocks', blockList),
  );
}

function relatedRow(item: RelatedToConversation['conversations'][number]): HTMLLIElement {
  const link = el('a', { text: item.name, attrs: { href: conversationUrl(item.id) } });
  link.addEventListener('click', (event) => followInPlace(event, conversationUrl(item.id)));
  const messages = item.message_count === 1 ? '1 message' : `${item.message_count} messages`;
  return el('li', {}, link, el('span', { className: 'meta', text: ` ${item.status} · ${formatTime(item.created_at)} · ${messages}` }));
}

/** The panel beside the open thread, from the conversation just read and the related route. */
export async function showVisitorPanel(data: OperatorConversation): Promise<void> {
  const id = data.conversation.id;
  const result = await call<RelatedToConversation>('GET', `/api/admin/conversations/${id}/related`);
  if (id !== state.current) return;
  const related = byId('related');
  if (result.status !== 200 || !result.body) {
    renderFacts(data, null);
    related.replaceChildren(el('li', { className: 'error', text: errorText(result) }));
    return;
  }
  renderFacts(data, result.body.blocks);
  const { conversations } = result.body;
  related.replaceChildren(...(conversations.length === 0 ? [el('li', { className: 'meta', text: 'No other conversation.' })] : conversations.map(relatedRow)));
}
