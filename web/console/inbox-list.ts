import type { ConversationList, ConversationListItem } from '../api-types.ts';
import { byId, el, errorText, formatTime } from '../dom.ts';
import { call, setStatus } from './api.ts';
import { conversationUrl, followInPlace } from './navigation.ts';
import { labelWords } from './overview.ts';
import { renderSelection, toggle } from './selection.ts';
import { state } from './state.ts';

const PAGE_SIZE = 50;

function listQuery(limit: number, after: string | null, count = false): string {
  const query = new URLSearchParams({ limit: String(limit) });
  const q = byId<HTMLInputElement>('q').value.trim();
  const status = byId<HTMLSelectElement>('f-status').value;
  const label = byId<HTMLSelectElement>('f-label').value;
  if (q) query.set('q', q);
  // Snoozed is no status of the API but its own list, where the operator looks for it among the statuses.
  if (status === 'snoozed') query.set('snoozed', 'true');
  else if (status) query.set('status', status);
  if (label) query.set('label', label);
  const unread = byId<HTMLSelectElement>('f-unread').value;
  if (unread === 'only') query.set('unread', 'true');
  if (unread === 'first') query.set('order', 'unread');
  if (count) query.set('count', 'true');
  if (after) query.set('cursor', after);
  return `/api/admin/conversations?${query}`;
}

/** Age as people say it: "now", "5 min", "3 h", "2 d", then the date. */
export function age(iso: string): string {
  const minutes = Math.floor((Date.now() - Date.parse(iso)) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h`;
  if (minutes < 7 * 24 * 60) return `${Math.floor(minutes / (24 * 60))} d`;
  return new Date(iso).toLocaleDateString();
}

function renderRow(item: ConversationListItem): HTMLLIElement {
  // A snooze that has come back stays set until the conversation is opened: unread till then.
  const unread = item.unread_count > 0 || (item.snoozed_until !== null && Date.parse(item.snoozed_until) <= Date.now());
  const badge = unread ? [el('span', { className: 'badge', text: String(item.unread_count || '↺'), attrs: { title: item.unread_count ? `${item.unread_count} unread` : 'back from snooze' } }), el('span', { className: 'visually-hidden', text: item.unread_count ? ' unread, ' : ' back from snooze, ' })] : [];
  const link = el(
    'a',
    { className: 'row-link', attrs: { href: conversationUrl(item.id), 'data-id': item.id } },
    el(
      'span',
      { className: 'row-top' },
      el('span', { className: 'row-name', text: item.name }),
      ...badge,
      el('span', { className: 'row-tags' }, el('span', { className: `tag status-${item.status}`, text: item.status }), el('span', { className: 'tag', text: labelWords(item.review_label) })),
      el('time', { className: 'row-age', text: age(item.last_message_at), attrs: { datetime: item.last_message_at, title: formatTime(item.last_message_at) } }),
    ),
    el('span', { className: 'row-preview', text: `${item.last_message_role === 'admin' ? 'You: ' : ''}${item.last_message_preview}` }),
  );
  if (item.id === state.current) link.setAttribute('aria-current', 'page');
  link.addEventListener('click', (event) => followInPlace(event, conversationUrl(item.id)));
  const box = el('input', { className: 'select', attrs: { type: 'checkbox', 'aria-label': `Select ${item.name}` } });
  box.checked = state.selected.has(item.id);
  box.addEventListener('click', (event) => {
    event.preventDefault();
    toggle(item.id, event.shiftKey);
  });
  return el('li', { className: `conversation-row${unread ? ' unread' : ''}${box.checked ? ' selected' : ''}`, attrs: { 'data-id': item.id } }, box, link);
}

export function renderList(): void {
  const list = byId('conversations');
  const focusedId = (document.activeElement as HTMLElement | null)?.dataset?.id;
  const shown = state.rows.filter((row) => !state.deleting.has(row.id));
  for (const id of state.selected) if (!shown.some((row) => row.id === id)) state.selected.delete(id);
  renderSelection();
  list.replaceChildren(...shown.map(renderRow));
  if (shown.length === 0) list.append(el('li', { className: 'empty', text: byId<HTMLInputElement>('q').value.trim() ? 'No conversation matches this search.' : 'No conversations match.' }));
  // A live refresh must not take the keyboard's place away.
  if (focusedId) list.querySelector<HTMLElement>(`a[data-id="${focusedId}"]`)?.focus();
  byId('more').hidden = state.cursor === null;
}

function showCount(total: ConversationList['total']): void {
  if (!total) return;
  const figure = `${total.count.toLocaleString('en')}${total.capped ? '+' : ''}`;
  byId('list-count').textContent = total.count === 1 && !total.capped ? '1 conversation' : `${figure} conversations`;
}

/**
 * The first page again, as long as what is shown (a live refresh keeps the rows already paged in).
 * A live refresh clears only an earlier failure: the sentence about the operator's last action
 * ("Conversation deleted.") stays until their next one, even when that action's own event arrives after it.
 */
export async function loadConversations(live = false): Promise<void> {
  const limit = Math.min(500, Math.max(PAGE_SIZE, state.rows.length));
  const result = await call<ConversationList>('GET', listQuery(limit, null, true));
  if (result.status !== 200 || !result.body) return setStatus('list-status', errorText(result), true);
  showCount(result.body.total);
  state.rows = result.body.conversations;
  state.cursor = result.body.next_cursor;
  if (!live || byId('list-status').classList.contains('error')) setStatus('list-status', '');
  renderList();
}

export async function loadMore(): Promise<void> {
  if (!state.cursor) return;
  const result = await call<ConversationList>('GET', listQuery(PAGE_SIZE, state.cursor));
  if (result.status !== 200 || !result.body) return setStatus('list-status', errorText(result), true);
  const known = new Set(state.rows.map((row) => row.id));
  state.rows = [...state.rows, ...result.body.conversations.filter((row) => !known.has(row.id))];
  state.cursor = result.body.next_cursor;
  renderList();
}
