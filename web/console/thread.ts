import type { OperatorConversation } from '../api-types.ts';
import { byId, el, errorText, formatTime, messageBody, randomHex } from '../dom.ts';
import { attempt, call, setStatus } from './api.ts';
import { loadConversations, renderList } from './inbox-list.ts';
import { markCurrent, navigate } from './navigation.ts';
import { labelWords } from './overview.ts';
import { state } from './state.ts';
import { verifiedLine } from './verified.ts';
import { showVisitorPanel } from './visitor-panel.ts';

/** What the thread pane says when no conversation is open, as the page came. */
const EMPTY_THREAD = [...byId('thread-empty').childNodes].map((node) => node.cloneNode(true));

export function closeThread(): void {
  saveDraft();
  state.current = null;
  byId('thread').hidden = true;
  byId('thread-empty').hidden = false;
  byId('thread-empty').replaceChildren(...EMPTY_THREAD.map((node) => node.cloneNode(true)));
  byId('inbox').dataset.view = 'list';
  for (const link of document.querySelectorAll('#conversations a[aria-current]')) link.removeAttribute('aria-current');
}

function saveDraft(): void {
  if (state.current) state.drafts.set(state.current, byId<HTMLTextAreaElement>('admin-reply-text').value);
}

function renderThread(data: OperatorConversation): void {
  const { conversation, messages } = data;
  state.currentStatus = conversation.status;
  byId('thread-title').textContent = conversation.name;
  const invitation = conversation.invitation_id ? `invitation ${conversation.invitation_id}` : 'no invitation id';
  const verified = byId('thread-verified');
  verified.hidden = conversation.verified_origin === null;
  verified.textContent = conversation.verified_origin === null ? '' : `verified: ${conversation.verified_origin}`;
  // The operator's read ends a snooze that has come back: one still here lies ahead.
  const snoozed = conversation.snoozed_until ? ` · snoozed until ${formatTime(conversation.snoozed_until)}` : '';
  byId('thread-meta').textContent = `${conversation.status} · ${labelWords(conversation.review_label)} · ${invitation} · started ${formatTime(conversation.created_at)}${snoozed}`;
  byId('snooze-now').hidden = !snoozed;
  const list = byId('thread-messages');
  const pane = byId('thread-pane');
  const atBottom = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80;
  const before = list.childElementCount;
  const entries = [
    ...messages.map((message) => ({
      at: message.created_at,
      node: el(
        'li',
        { className: `message ${message.role}` },
        el('div', { className: 'meta', text: `${message.role === 'admin' ? 'You (operator)' : conversation.name} · ${formatTime(message.created_at)}${message.role === 'admin' && message.seen_at ? ' · seen' : ''}` }),
        ...verifiedLine(message.verified_origin),
        messageBody(message),
      ),
    })),
    ...data.notes.map((note) => ({
      at: note.created_at,
      node: el('li', { className: 'message note' }, el('div', { className: 'meta', text: `Private note · ${formatTime(note.created_at)}` }), el('p', { className: 'body', text: note.body })),
    })),
  ];
  // ISO times sort as text; a note and a message of the same millisecond keep the message first.
  entries.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
  list.replaceChildren(...entries.map((entry) => entry.node));
  const open = conversation.status === 'open';
  byId('admin-reply').hidden = !open;
  byId('reply-closed').hidden = open;
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-status]')) button.hidden = button.dataset.status === conversation.status;
  if (!state.reviewEdited) {
    byId<HTMLSelectElement>('review-label').value = conversation.review_label;
    byId<HTMLInputElement>('review-note').value = conversation.operator_note;
  }
  if (atBottom || before !== entries.length) list.lastElementChild?.scrollIntoView({ block: 'nearest' });
}

export async function openThread(id: string): Promise<void> {
  if (id !== state.current) {
    saveDraft();
    state.current = id;
    state.reviewEdited = false;
    setStatus('thread-status', '');
    byId<HTMLTextAreaElement>('admin-reply-text').value = state.drafts.get(id) ?? '';
    byId('thread-messages').replaceChildren();
  }
  byId('inbox').dataset.view = 'thread';
  for (const link of document.querySelectorAll<HTMLElement>('#conversations a')) markCurrent(link, link.dataset.id === id);
  await reloadThread();
}

export async function reloadThread(): Promise<void> {
  const id = state.current;
  if (!id) return;
  state.threadStale = false;
  const result = await call<OperatorConversation>('GET', `/api/admin/conversations/${id}`);
  if (id !== state.current) return;
  if (result.status === 404) {
    byId('thread').hidden = true;
    byId('thread-empty').hidden = false;
    byId('thread-empty').textContent = 'This conversation does not exist (any more).';
    return;
  }
  if (result.status !== 200 || !result.body) return setStatus('thread-status', errorText(result), true);
  byId('thread-empty').hidden = true;
  byId('thread').hidden = false;
  renderThread(result.body);
  await showVisitorPanel(result.body);
}

export async function reply(): Promise<void> {
  if (!state.current) return;
  const id = state.current;
  const field = byId<HTMLTextAreaElement>('admin-reply-text');
  if (!field.value.trim()) return setStatus('thread-status', 'Write a reply first.', true);
  const button = byId<HTMLButtonElement>('admin-reply-send');
  button.disabled = true;
  try {
    const result = await call('POST', `/api/admin/conversations/${id}/messages`, { message: field.value, client_message_id: randomHex(16) });
    if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
    field.value = '';
    state.drafts.delete(id);
    setStatus('thread-status', 'Reply sent.');
    await reloadThread();
  } finally {
    button.disabled = false;
  }
}

export async function setConversationStatus(value: string): Promise<void> {
  if (!state.current) return;
  const result = await call('POST', `/api/admin/conversations/${state.current}/status`, { status: value });
  if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
  setStatus('thread-status', `Status set to ${value}.`);
  await reloadThread();
}

/** How long a deletion can be undone: the request is sent only when it runs out. */
const UNDO_MS = 5_000;

export function remove(): void {
  const id = state.current;
  if (!id || !window.confirm('Delete this conversation and every message in it for good?')) return;
  const name = byId('thread-title').textContent ?? 'The conversation';
  state.deleting.add(id);
  state.drafts.delete(id);
  navigate('/admin/');
  renderList();
  const undo = el('button', { className: 'quiet', text: 'Undo', attrs: { type: 'button' } });
  const timer = window.setTimeout(() => attempt('list-status', () => sendDelete(id)), UNDO_MS);
  undo.addEventListener('click', () => {
    window.clearTimeout(timer);
    state.deleting.delete(id);
    setStatus('list-status', 'Deletion undone.');
    attempt('list-status', () => loadConversations(true));
  });
  byId('list-status').classList.remove('error');
  byId('list-status').replaceChildren(el('span', { className: 'undo' }, el('span', { text: `${name} will be deleted in ${UNDO_MS / 1000} s.` }), undo));
  undo.focus();
}

async function sendDelete(id: string): Promise<void> {
  try {
    const result = await call('DELETE', `/api/admin/conversations/${id}`);
    if (result.status >= 400 && result.status !== 404) return setStatus('list-status', errorText(result), true);
    setStatus('list-status', 'Conversation deleted.');
  } finally {
    state.deleting.delete(id);
    state.rows = state.rows.filter((row) => row.id !== id);
    renderList();
  }
}

export async function addNote(): Promise<void> {
  if (!state.current) return;
  const field = byId<HTMLTextAreaElement>('note-text');
  const result = await call('POST', `/api/admin/conversations/${state.current}/notes`, { note: field.value });
  if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
  field.value = '';
  setStatus('thread-status', 'Note added.');
  await reloadThread();
}

export async function review(): Promise<void> {
  if (!state.current) return;
  const label = byId<HTMLSelectElement>('review-label').value;
  const note = byId<HTMLInputElement>('review-note').value;
  const result = await call('POST', `/api/admin/conversations/${state.current}/review`, { label, note });
  if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
  state.reviewEdited = false;
  setStatus('thread-status', 'Review saved.');
}

/** When a choice of the snooze menu ends, on the operator's clock and in their time zone; null: now. */
function snoozeEnd(choice: string, from: Date): Date | null {
  if (choice === 'now') return null;
  if (choice === 'hour') return new Date(from.getTime() + 3_600_000);
  const end = new Date(from);
  end.setHours(9, 0, 0, 0);
  // Tomorrow morning, or next Monday's (getDay: Sunday 0, Monday 1).
  end.setDate(end.getDate() + (choice === 'tomorrow' ? 1 : (8 - from.getDay()) % 7 || 7));
  return end;
}

async function snooze(choice: string): Promise<void> {
  const id = state.current;
  if (!id) return;
  const until = snoozeEnd(choice, new Date());
  const result = await call('POST', `/api/admin/conversations/${id}/snooze`, { until: until?.toISOString() ?? null });
  if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
  setStatus('thread-status', until ? `Snoozed until ${formatTime(until.toISOString())}: it comes back unread then, or when the visitor writes.` : 'Back in the list.');
  await loadConversations(true);
  await reloadThread();
}

const snoozeMenu = byId<HTMLSelectElement>('snooze');
snoozeMenu.addEventListener('change', () => {
  const choice = snoozeMenu.value;
  snoozeMenu.value = '';
  if (choice) attempt('thread-status', () => snooze(choice));
});
