import type {
  BridgeList,
  BridgeSummary,
  BridgeThread,
  ConversationList,
  ConversationListItem,
  InboxOverview,
  InvitationReceipt,
  ModeratorTopicPage,
  NotificationSettings,
  OperatorConversation,
  ReviewLabels,
  TestAlertResult,
  TopicList,
} from './api-types.ts';
import { api, byId, el, errorText, formatTime, randomHex, type ApiResult } from './dom.ts';
import { openEventStream, RESET_EVENT, type StreamEvent, type StreamState } from './event-stream.ts';

/**
 * The token lives in sessionStorage: it survives a reload of this tab and dies with the tab, and no
 * other tab or later visit sees it (see the README on why not localStorage). Never in a cookie or a URL.
 */
const TOKEN_KEY = 'parley.adminToken';
const PAGE_SIZE = 50;
const TITLE = 'Parley console';

let token = '';
let rows: ConversationListItem[] = [];
let cursor: string | null = null;
let current: string | null = null;
let currentStatus = 'open';
let currentTopic: string | null = null;
let forumLoaded = false;
let stopStream: (() => void) | undefined;
let threadStale = false;
/** The review fields hold the operator's unsaved edits: a live re-render leaves them alone. */
let reviewEdited = false;
const drafts = new Map<string, string>();

class SignedOut extends Error {}

/** An API call; a 401 means the token stopped working, which sends the operator back to the sign-in. */
async function call<T>(method: string, url: string, body?: unknown): Promise<ApiResult<T>> {
  const result = await api<T>(method, url, { token, body });
  if (result.status === 401 && token) {
    showLogin('The token is no longer accepted (it may have been changed): sign in again.');
    throw new SignedOut();
  }
  return result;
}

/** Runs an action; a network failure becomes a sentence in `statusId` instead of an unhandled error. */
function attempt(statusId: string, action: () => Promise<unknown>): void {
  action().catch((error: unknown) => {
    if (error instanceof SignedOut) return;
    setStatus(statusId, 'Could not reach the server. Check the connection and try again.', true);
  });
}

function setStatus(id: string, text: string, isError = false): void {
  const node = byId(id);
  node.textContent = text;
  node.classList.toggle('error', isError);
}

function signInSentence(status: number): string {
  if (status === 401) return 'That token was not accepted. Check it (it is the ADMIN_TOKEN the service was started with) and try again.';
  if (status === 429) return 'Too many wrong tokens were tried from here. Wait a few minutes, then try again.';
  if (status === 503) return 'The service has no administrator token configured yet: set ADMIN_TOKEN and restart it.';
  return `The server could not check the token just now (it answered ${status}). Try again in a moment.`;
}

// ---- Sign-in -------------------------------------------------------------------------------

async function signIn(candidate: string, remembered: boolean): Promise<void> {
  token = candidate;
  let result: ApiResult<InboxOverview>;
  try {
    result = await api<InboxOverview>('GET', '/api/admin/overview', { token });
  } catch {
    token = '';
    byId('login').hidden = false;
    setStatus('login-status', 'Could not reach the server. Check the connection and try again.', true);
    return;
  }
  if (result.status !== 200) {
    token = '';
    sessionStorage.removeItem(TOKEN_KEY);
    byId('login').hidden = false;
    setStatus('login-status', remembered && result.status === 401 ? 'Your session has ended: sign in again.' : signInSentence(result.status), true);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  byId<HTMLInputElement>('admin-token').value = '';
  setStatus('login-status', '');
  byId('login').hidden = true;
  byId('console').hidden = false;
  for (const node of document.querySelectorAll<HTMLElement>('.signed-in')) node.hidden = false;
  for (const node of document.querySelectorAll<HTMLElement>('.signed-out')) node.hidden = true;
  renderOverview(result.body);
  setupNotifyButton();
  stopStream = openEventStream({ token, onEvent, onState: streamState });
  attempt('list-status', async () => {
    await loadLabels();
    await Promise.all([loadConversations(), loadAlertsStatus(), applyRoute()]);
  });
}

function showLogin(message: string): void {
  stopStream?.();
  stopStream = undefined;
  token = '';
  sessionStorage.removeItem(TOKEN_KEY);
  byId('console').hidden = true;
  byId('login').hidden = false;
  for (const node of document.querySelectorAll<HTMLElement>('.signed-in')) node.hidden = true;
  for (const node of document.querySelectorAll<HTMLElement>('.signed-out')) node.hidden = false;
  document.title = TITLE;
  setStatus('login-status', message, true);
  byId('admin-token').focus();
}

function signOut(): void {
  stopStream?.();
  sessionStorage.removeItem(TOKEN_KEY);
  // A fresh page: nothing of the inbox stays in this tab's memory or DOM.
  window.location.replace('/admin/');
}

// ---- Addresses -----------------------------------------------------------------------------

/** What the thread pane says when no conversation is open, as the page came. */
const EMPTY_THREAD = [...byId('thread-empty').childNodes].map((node) => node.cloneNode(true));

const CONVERSATION_PATH = /^\/admin\/conversations\/([0-9a-fA-F-]{36})$/;

function conversationUrl(id: string): string {
  return `/admin/conversations/${id}`;
}

function navigate(url: string): void {
  if (url !== window.location.pathname) window.history.pushState(null, '', url);
  attempt('list-status', applyRoute);
}

/** Shows what the address names: the inbox with or without an open conversation, or the forum moderation. */
async function applyRoute(): Promise<void> {
  const path = window.location.pathname;
  const forum = path === '/admin/forum';
  byId('inbox-view').hidden = forum;
  byId('forum-view').hidden = !forum;
  markCurrent(byId('nav-inbox'), !forum);
  markCurrent(byId('nav-forum'), forum);
  if (forum) {
    if (!forumLoaded) await loadForum();
    return;
  }
  const id = CONVERSATION_PATH.exec(path)?.[1]?.toLowerCase() ?? null;
  if (id) await openThread(id);
  else closeThread();
}

function markCurrent(link: HTMLElement, isCurrent: boolean): void {
  if (isCurrent) link.setAttribute('aria-current', 'page');
  else link.removeAttribute('aria-current');
}

/** Plain clicks on the console's own links change the view in place; other clicks (new tab) do what they always do. */
function followInPlace(event: MouseEvent, url: string): void {
  if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(url);
}

// ---- Overview ------------------------------------------------------------------------------

const TOTAL_NAMES: Record<string, string> = {
  total_conversations: 'Conversations',
  unread_threads: 'Unread',
  open: 'Open',
  closed: 'Closed',
  spam: 'Spam',
  new_last_24h: 'New in 24 h',
};

function renderOverview(overview: InboxOverview | null): void {
  if (!overview) return;
  byId('totals').replaceChildren(
    ...Object.entries(overview.totals).map(([name, value]) =>
      el('div', { attrs: { 'data-total': name } }, el('dt', { text: TOTAL_NAMES[name] ?? name }), el('dd', { text: String(value) })),
    ),
  );
  const unread = overview.totals.unread_threads;
  document.title = unread > 0 ? `(${unread}) ${TITLE}` : TITLE;
}

async function loadOverview(): Promise<void> {
  const result = await call<InboxOverview>('GET', '/api/admin/overview');
  if (result.status === 200) renderOverview(result.body);
}

async function loadAlertsStatus(): Promise<void> {
  const alerts = await call<NotificationSettings>('GET', '/api/admin/notifications');
  byId('alerts-status').textContent = alerts.body?.configured ? 'Telegram alerts are configured.' : 'Telegram alerts are not configured.';
}

async function loadLabels(): Promise<void> {
  const result = await call<ReviewLabels>('GET', '/api/admin/review-labels');
  const labels = result.body?.labels ?? [];
  byId('f-label').append(...labels.map((label) => el('option', { text: label })));
  byId('review-label').replaceChildren(...labels.map((label) => el('option', { text: label })));
}

// ---- The list ------------------------------------------------------------------------------

function listQuery(limit: number, after: string | null): string {
  const query = new URLSearchParams({ limit: String(limit) });
  const q = byId<HTMLInputElement>('q').value.trim();
  const status = byId<HTMLSelectElement>('f-status').value;
  const label = byId<HTMLSelectElement>('f-label').value;
  if (q) query.set('q', q);
  if (status) query.set('status', status);
  if (label) query.set('label', label);
  if (byId<HTMLInputElement>('f-unread').checked) query.set('unread', 'true');
  if (after) query.set('cursor', after);
  return `/api/admin/conversations?${query}`;
}

/** Age as people say it: "now", "5 min", "3 h", "2 d", then the date. */
function age(iso: string): string {
  const minutes = Math.floor((Date.now() - Date.parse(iso)) / 60_000);
  if (minutes < 1) return 'now';
  if (minutes < 60) return `${minutes} min`;
  if (minutes < 24 * 60) return `${Math.floor(minutes / 60)} h`;
  if (minutes < 7 * 24 * 60) return `${Math.floor(minutes / (24 * 60))} d`;
  return new Date(iso).toLocaleDateString();
}

function renderRow(item: ConversationListItem): HTMLLIElement {
  const unread = item.unread_count > 0;
  const badge = unread ? [el('span', { className: 'badge', text: String(item.unread_count), attrs: { title: `${item.unread_count} unread` } }), el('span', { className: 'visually-hidden', text: ' unread, ' })] : [];
  const link = el(
    'a',
    { className: 'row-link', attrs: { href: conversationUrl(item.id), 'data-id': item.id } },
    el('span', { className: 'row-top' }, el('span', { className: 'row-name', text: item.name }), ...badge, el('time', { className: 'row-age', text: age(item.last_message_at), attrs: { datetime: item.last_message_at, title: formatTime(item.last_message_at) } })),
    el('span', { className: 'row-preview', text: `${item.last_message_role === 'admin' ? 'You: ' : ''}${item.last_message_preview}` }),
    el('span', { className: 'row-tags' }, el('span', { className: `tag status-${item.status}`, text: item.status }), el('span', { className: 'tag', text: item.review_label.replaceAll('_', ' ') })),
  );
  if (item.id === current) link.setAttribute('aria-current', 'page');
  link.addEventListener('click', (event) => followInPlace(event, conversationUrl(item.id)));
  return el('li', { className: `conversation-row${unread ? ' unread' : ''}`, attrs: { 'data-id': item.id } }, link);
}

function renderList(): void {
  const list = byId('conversations');
  const focusedId = (document.activeElement as HTMLElement | null)?.dataset?.id;
  list.replaceChildren(...rows.map(renderRow));
  if (rows.length === 0) list.append(el('li', { className: 'empty', text: byId<HTMLInputElement>('q').value.trim() ? 'No conversation matches this search.' : 'No conversations match.' }));
  // A live refresh must not take the keyboard's place away.
  if (focusedId) list.querySelector<HTMLElement>(`a[data-id="${focusedId}"]`)?.focus();
  byId('more').hidden = cursor === null;
}

/**
 * The first page again, as long as what is shown (a live refresh keeps the rows already paged in).
 * A live refresh clears only an earlier failure: the sentence about the operator's last action
 * ("Conversation deleted.") stays until their next one, even when that action's own event arrives after it.
 */
async function loadConversations(live = false): Promise<void> {
  const limit = Math.min(500, Math.max(PAGE_SIZE, rows.length));
  const result = await call<ConversationList>('GET', listQuery(limit, null));
  if (result.status !== 200 || !result.body) return setStatus('list-status', errorText(result), true);
  rows = result.body.conversations;
  cursor = result.body.next_cursor;
  if (!live || byId('list-status').classList.contains('error')) setStatus('list-status', '');
  renderList();
}

async function loadMore(): Promise<void> {
  if (!cursor) return;
  const result = await call<ConversationList>('GET', listQuery(PAGE_SIZE, cursor));
  if (result.status !== 200 || !result.body) return setStatus('list-status', errorText(result), true);
  const known = new Set(rows.map((row) => row.id));
  rows = [...rows, ...result.body.conversations.filter((row) => !known.has(row.id))];
  cursor = result.body.next_cursor;
  renderList();
}

// ---- The open conversation -----------------------------------------------------------------

function closeThread(): void {
  saveDraft();
  current = null;
  byId('thread').hidden = true;
  byId('thread-empty').hidden = false;
  byId('thread-empty').replaceChildren(...EMPTY_THREAD.map((node) => node.cloneNode(true)));
  byId('inbox').dataset.view = 'list';
  for (const link of document.querySelectorAll('#conversations a[aria-current]')) link.removeAttribute('aria-current');
}

function saveDraft(): void {
  if (current) drafts.set(current, byId<HTMLTextAreaElement>('admin-reply-text').value);
}

function renderThread(data: OperatorConversation): void {
  const { conversation, messages } = data;
  currentStatus = conversation.status;
  byId('thread-title').textContent = conversation.name;
  const invitation = conversation.invitation_id ? `invitation ${conversation.invitation_id}` : 'no invitation id';
  byId('thread-meta').textContent = `${conversation.status} · ${conversation.review_label.replaceAll('_', ' ')} · ${invitation} · started ${formatTime(conversation.created_at)}`;
  const list = byId('thread-messages');
  const pane = byId('thread-pane');
  const atBottom = pane.scrollHeight - pane.scrollTop - pane.clientHeight < 80;
  const before = list.childElementCount;
  list.replaceChildren(
    ...messages.map((message) =>
      el(
        'li',
        { className: `message ${message.role}` },
        el('div', { className: 'meta', text: `${message.role === 'admin' ? 'You (operator)' : conversation.name} · ${formatTime(message.created_at)}${message.role === 'admin' && message.seen_at ? ' · seen' : ''}` }),
        el('p', { className: 'body', text: message.body }),
      ),
    ),
  );
  const open = conversation.status === 'open';
  byId('admin-reply').hidden = !open;
  byId('reply-closed').hidden = open;
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-status]')) button.hidden = button.dataset.status === conversation.status;
  if (!reviewEdited) {
    byId<HTMLSelectElement>('review-label').value = conversation.review_label;
    byId<HTMLInputElement>('review-note').value = conversation.operator_note;
  }
  if (atBottom || before !== messages.length) list.lastElementChild?.scrollIntoView({ block: 'nearest' });
}

async function openThread(id: string): Promise<void> {
  if (id !== current) {
    saveDraft();
    current = id;
    reviewEdited = false;
    setStatus('thread-status', '');
    byId<HTMLTextAreaElement>('admin-reply-text').value = drafts.get(id) ?? '';
    byId('thread-messages').replaceChildren();
  }
  byId('inbox').dataset.view = 'thread';
  for (const link of document.querySelectorAll<HTMLElement>('#conversations a')) markCurrent(link, link.dataset.id === id);
  await reloadThread();
}

async function reloadThread(): Promise<void> {
  const id = current;
  if (!id) return;
  threadStale = false;
  const result = await call<OperatorConversation>('GET', `/api/admin/conversations/${id}`);
  if (id !== current) return;
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
}

async function reply(): Promise<void> {
  if (!current) return;
  const id = current;
  const field = byId<HTMLTextAreaElement>('admin-reply-text');
  if (!field.value.trim()) return setStatus('thread-status', 'Write a reply first.', true);
  const button = byId<HTMLButtonElement>('admin-reply-send');
  button.disabled = true;
  try {
    const result = await call('POST', `/api/admin/conversations/${id}/messages`, { message: field.value, client_message_id: randomHex(16) });
    if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
    field.value = '';
    drafts.delete(id);
    setStatus('thread-status', 'Reply sent.');
    await reloadThread();
  } finally {
    button.disabled = false;
  }
}

async function setConversationStatus(value: string): Promise<void> {
  if (!current) return;
  const result = await call('POST', `/api/admin/conversations/${current}/status`, { status: value });
  if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
  setStatus('thread-status', `Status set to ${value}.`);
  await reloadThread();
}

async function remove(): Promise<void> {
  if (!current || !window.confirm('Delete this conversation and every message in it for good?')) return;
  const id = current;
  // No live refresh may read it again meanwhile: it is about to be gone.
  current = null;
  const result = await call('DELETE', `/api/admin/conversations/${id}`);
  if (result.status >= 400) {
    current = id;
    return setStatus('thread-status', errorText(result), true);
  }
  drafts.delete(id);
  navigate('/admin/');
  rows = rows.filter((row) => row.id !== id);
  renderList();
  setStatus('list-status', 'Conversation deleted.');
}

async function review(): Promise<void> {
  if (!current) return;
  const label = byId<HTMLSelectElement>('review-label').value;
  const note = byId<HTMLInputElement>('review-note').value;
  const result = await call('POST', `/api/admin/conversations/${current}/review`, { label, note });
  if (result.status >= 400) return setStatus('thread-status', errorText(result), true);
  reviewEdited = false;
  setStatus('thread-status', 'Review saved.');
}

async function testAlert(): Promise<void> {
  const result = await call<TestAlertResult>('POST', '/api/admin/notifications/test');
  byId('alert-result').textContent = result.body?.sent ? 'Test alert sent.' : errorText(result);
}

// ---- Live updates --------------------------------------------------------------------------

let inboxTimer: number | undefined;
let forumTimer: number | undefined;
const news = new Set<string>();

function streamState(state: StreamState): void {
  const label = byId('live-status');
  if (state === 'refused') return showLogin('The token is no longer accepted (it may have been changed): sign in again.');
  const wasDown = label.dataset.state === 'reconnecting';
  label.dataset.state = state;
  label.textContent = state === 'live' ? 'Live' : 'Reconnecting…';
  // Back after a drop: the server replays what it kept, and a full refresh covers the rest.
  if (state === 'live' && wasDown) scheduleInbox(null);
}

function onEvent(event: StreamEvent): void {
  if (event.type === RESET_EVENT) {
    // The server no longer keeps the events missed since the last one seen: read everything shown again.
    scheduleInbox(null);
    if (forumLoaded) scheduleForum();
  } else if (event.type.startsWith('conversation.')) {
    if ((event.type === 'conversation.created' || event.type === 'conversation.message') && event.conversation_id) news.add(event.conversation_id);
    if (event.type === 'conversation.deleted' && event.conversation_id === current) {
      current = null;
      navigate('/admin/');
      setStatus('list-status', 'The open conversation was deleted.');
    }
    scheduleInbox(event.conversation_id ?? null);
  } else if (forumLoaded) {
    scheduleForum();
  }
}

function scheduleForum(): void {
  window.clearTimeout(forumTimer);
  forumTimer = window.setTimeout(() => attempt('forum-status', refreshForum), 200);
}

let threadTouched = false;
/** Bursts of events make one refresh of the list, the overview and (when it changed) the open conversation. */
function scheduleInbox(conversationId: string | null): void {
  if (conversationId === null || conversationId === current) threadTouched = true;
  window.clearTimeout(inboxTimer);
  inboxTimer = window.setTimeout(() => {
    const touched = threadTouched;
    threadTouched = false;
    attempt('list-status', async () => {
      // Reading the open conversation marks it read: only while the operator can see it.
      if (touched && current) {
        if (document.visibilityState === 'visible') await reloadThread();
        else threadStale = true;
      }
      await Promise.all([loadConversations(true), loadOverview()]);
      notifyNews();
    });
  }, 150);
}

function notifyNews(): void {
  const fresh = [...news];
  news.clear();
  if (!('Notification' in window) || Notification.permission !== 'granted' || document.visibilityState === 'visible') return;
  for (const id of fresh) {
    const row = rows.find((item) => item.id === id);
    if (!row || row.last_message_role !== 'visitor' || row.unread_count === 0) continue;
    // The name only: a notification can show on a locked screen.
    const notice = new Notification(row.message_count === 1 ? 'New conversation' : 'New message', { body: row.name, tag: row.id });
    notice.addEventListener('click', () => {
      window.focus();
      navigate(conversationUrl(row.id));
    });
  }
}

function setupNotifyButton(): void {
  const button = byId<HTMLButtonElement>('notify');
  if (!('Notification' in window)) {
    button.hidden = true;
    return;
  }
  const show = () => {
    const permission = Notification.permission;
    button.textContent = permission === 'granted' ? 'Notifications on' : permission === 'denied' ? 'Notifications blocked' : 'Notifications';
    button.disabled = permission !== 'default';
    button.title = permission === 'denied' ? 'Allow them in the browser\'s site settings' : 'Desktop notifications of new messages while this tab is in the background';
  };
  show();
  button.onclick = () => void Notification.requestPermission().then(show);
}

// ---- Keyboard ------------------------------------------------------------------------------

function rowLinks(): HTMLAnchorElement[] {
  return [...document.querySelectorAll<HTMLAnchorElement>('#conversations a.row-link')];
}

function moveSelection(step: number): void {
  const links = rowLinks();
  if (links.length === 0) return;
  const focused = links.indexOf(document.activeElement as HTMLAnchorElement);
  const from = focused >= 0 ? focused : links.findIndex((link) => link.dataset.id === current);
  const next = from < 0 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, from + step));
  links[next]?.focus();
}

function onKey(event: KeyboardEvent): void {
  if (event.defaultPrevented || byId('console').hidden) return;
  const target = event.target as HTMLElement;
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && target.id === 'admin-reply-text') {
    event.preventDefault();
    byId<HTMLFormElement>('admin-reply').requestSubmit();
    return;
  }
  if (target.closest('input, textarea, select, [contenteditable="true"]')) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  const keys = byId<HTMLDialogElement>('keys');
  if (event.ctrlKey || event.metaKey || event.altKey || keys.open || !byId('forum-view').hidden) return;
  const act = (action: () => void) => {
    event.preventDefault();
    action();
  };
  switch (event.key) {
    case 'j':
      return act(() => moveSelection(1));
    case 'k':
      return act(() => moveSelection(-1));
    case 'Enter': {
      if (target.closest('a, button')) return; // the focused link or button does its own thing
      const link = rowLinks().find((candidate) => candidate.dataset.id === current) ?? rowLinks()[0];
      if (link) act(() => navigate(conversationUrl(link.dataset.id ?? '')));
      return;
    }
    case 'r':
      if (current && !byId('admin-reply').hidden) act(() => byId('admin-reply-text').focus());
      return;
    case 'e':
      if (current && currentStatus !== 'closed') act(() => attempt('thread-status', () => setConversationStatus('closed')));
      return;
    case '/':
      return act(() => byId('q').focus());
    case '?':
      return act(() => keys.showModal());
    case 'Escape':
      if (current) act(() => navigate('/admin/'));
      return;
  }
}

// ---- Forum moderation ----------------------------------------------------------------------

async function loadForum(): Promise<void> {
  forumLoaded = true;
  await Promise.all([loadTopics(), loadBridges()]);
}

async function refreshForum(): Promise<void> {
  await Promise.all([loadTopics(), loadBridges(), currentTopic ? openTopic(currentTopic) : Promise.resolve()]);
}

async function loadTopics(): Promise<void> {
  const result = await call<TopicList>('GET', '/api/admin/forum/topics');
  if (result.status !== 200) return setStatus('forum-status', 'Forum moderation is not available.', true);
  const topics = result.body?.topics ?? [];
  byId('topics').replaceChildren(
    ...topics.map((topic) => {
      const button = el('button', { className: 'link', text: topic.title, attrs: { type: 'button' } });
      if (topic.topic_id === currentTopic) button.setAttribute('aria-current', 'true');
      button.addEventListener('click', () => attempt('forum-status', () => openTopic(topic.topic_id)));
      return el('li', {}, button, el('span', { className: 'meta', text: ` ${topic.category} · ${topic.status} · ${topic.visibility} · ${topic.message_count} posts · ${age(topic.updated_at)}` }));
    }),
  );
  if (topics.length === 0) byId('topics').append(el('li', { className: 'meta', text: 'No topics yet.' }));
}

function revokeButton(agentId: string, name: string): HTMLButtonElement {
  const button = el('button', { className: 'danger small', text: 'Revoke agent', attrs: { type: 'button', 'aria-label': `Revoke ${name}` } });
  button.addEventListener('click', () => attempt('forum-status', () => revoke(agentId, name)));
  return button;
}

async function openTopic(id: string): Promise<void> {
  currentTopic = id;
  const result = await call<ModeratorTopicPage>('GET', `/api/admin/forum/topics/${id}`);
  if (result.status !== 200 || !result.body) return setStatus('forum-status', errorText(result), true);
  byId('topic').hidden = false;
  byId('topic-title').textContent = `${result.body.topic.title} (${result.body.topic.status})`;
  byId('topic-close').hidden = result.body.topic.status === 'closed';
  byId('topic-open').hidden = result.body.topic.status === 'open';
  byId('topic-messages').replaceChildren(
    ...result.body.messages.map((post) => {
      const toggle = el('button', { className: 'small', text: post.hidden ? 'Unhide' : 'Hide', attrs: { type: 'button', 'data-action': 'hide' } });
      toggle.addEventListener('click', () => attempt('forum-status', () => hide(post.message_id, !post.hidden)));
      const who = post.sender_role === 'moderator' ? 'Moderator' : post.sender_display_name;
      const revoke = post.sender_role === 'agent' && post.sender_agent_id ? [revokeButton(post.sender_agent_id, post.sender_display_name)] : [];
      return el(
        'li',
        { className: `message ${post.sender_role === 'moderator' ? 'moderator' : ''} ${post.hidden ? 'hidden-post' : ''}` },
        el('div', { className: 'meta', text: `${who} · ${formatTime(post.created_at)}${post.hidden ? ' · hidden' : ''}` }),
        el('p', { className: 'body', text: post.message }),
        el('div', { className: 'actions' }, toggle, ...revoke),
      );
    }),
  );
  for (const button of document.querySelectorAll<HTMLElement>('#topics button')) button.removeAttribute('aria-current');
}

async function hide(messageId: string, hidden: boolean): Promise<void> {
  const result = await call('POST', `/api/admin/forum/messages/${messageId}/hide`, { hidden });
  if (result.status >= 400) return setStatus('forum-status', errorText(result), true);
  setStatus('forum-status', hidden ? 'Post hidden.' : 'Post shown again.');
  if (currentTopic) await openTopic(currentTopic);
}

async function setTopicStatus(value: string): Promise<void> {
  if (!currentTopic) return;
  const result = await call('POST', `/api/admin/forum/topics/${currentTopic}/status`, { status: value });
  setStatus('forum-status', result.status >= 400 ? errorText(result) : `Topic ${value === 'open' ? 'reopened' : 'closed'}.`, result.status >= 400);
  await Promise.all([openTopic(currentTopic), loadTopics()]);
}

async function announce(): Promise<void> {
  const body = {
    title: byId<HTMLInputElement>('a-title').value,
    summary: byId<HTMLInputElement>('a-summary').value,
    message: byId<HTMLTextAreaElement>('a-message').value,
    client_message_id: randomHex(16),
  };
  const result = await call('POST', '/api/admin/forum/announcements', body);
  if (result.status >= 400) return setStatus('forum-status', errorText(result), true);
  byId<HTMLFormElement>('announce').reset();
  setStatus('forum-status', 'Announcement published.');
  await loadTopics();
}

async function loadBridges(): Promise<void> {
  const result = await call<BridgeList>('GET', '/api/admin/forum/bridges');
  const bridges = result.body?.bridges ?? [];
  byId('bridges').replaceChildren(
    ...bridges.map((bridge) => {
      const button = el('button', { className: 'link', text: `${bridge.agent_display_name} in ${bridge.topic_title}`, attrs: { type: 'button' } });
      const thread = el('ol', { className: 'messages' });
      button.addEventListener('click', () => attempt('forum-status', () => openBridge(bridge, thread)));
      const badge = bridge.unread_count > 0 ? [el('span', { className: 'badge', text: String(bridge.unread_count), attrs: { title: 'unread' } })] : [];
      return el('li', {}, button, ...badge, revokeButton(bridge.agent_id, bridge.agent_display_name), thread);
    }),
  );
  if (bridges.length === 0) byId('bridges').append(el('li', { className: 'meta', text: 'No owner bridges yet.' }));
}

async function openBridge(bridge: BridgeSummary, thread: HTMLOListElement): Promise<void> {
  const path = `/api/admin/forum/bridges/${bridge.topic_id}/${bridge.agent_id}`;
  const result = await call<BridgeThread>('GET', path);
  const field = el('textarea', { attrs: { rows: '2', maxlength: '4000', 'aria-label': `Reply to ${bridge.agent_display_name}` } });
  const send = el('button', { text: 'Reply', attrs: { type: 'button' } });
  send.addEventListener('click', () => {
    attempt('forum-status', async () => {
      await call('POST', `${path}/messages`, { message: field.value, client_message_id: randomHex(16) });
      await openBridge(bridge, thread);
    });
  });
  thread.replaceChildren(
    ...(result.body?.messages ?? []).map((message) =>
      el('li', { className: 'message' }, el('div', { className: 'meta', text: `${message.role} · ${formatTime(message.created_at)}` }), el('p', { className: 'body', text: message.message })),
    ),
    el('li', {}, field, send),
  );
}

async function invite(): Promise<void> {
  const result = await call<InvitationReceipt>('POST', '/api/admin/peers/invitations');
  byId<HTMLInputElement>('invite-code').value = result.body?.invitation_code ?? '';
  setStatus('forum-status', result.body ? 'Invitation code made: give it to one agent; it works once.' : errorText(result), !result.body);
}

async function revoke(agentId: string, name: string): Promise<void> {
  if (!window.confirm(`Revoke ${name}? Its tokens stop working; its posts stay.`)) return;
  const result = await call('POST', `/api/admin/peers/${agentId}/revoke`);
  setStatus('forum-status', result.status >= 400 ? errorText(result) : `${name} is revoked.`, result.status >= 400);
}

// ---- Wiring --------------------------------------------------------------------------------

function onSubmit(id: string, statusId: string, action: () => Promise<void>): void {
  byId<HTMLFormElement>(id).addEventListener('submit', (event) => {
    event.preventDefault();
    attempt(statusId, action);
  });
}

byId<HTMLFormElement>('login-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const value = byId<HTMLInputElement>('admin-token').value.trim();
  if (!value) return setStatus('login-status', 'Enter the administrator token.', true);
  void signIn(value, false);
});
onSubmit('filters', 'list-status', () => loadConversations());
let searchTimer: number | undefined;
byId('q').addEventListener('input', () => {
  window.clearTimeout(searchTimer);
  searchTimer = window.setTimeout(() => attempt('list-status', () => loadConversations()), 250);
});
for (const id of ['f-status', 'f-label', 'f-unread']) byId(id).addEventListener('change', () => attempt('list-status', () => loadConversations()));
for (const id of ['review-label', 'review-note']) byId(id).addEventListener('input', () => (reviewEdited = true));
byId('more').addEventListener('click', () => attempt('list-status', loadMore));
onSubmit('admin-reply', 'thread-status', reply);
onSubmit('review', 'thread-status', review);
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-status]')) {
  button.addEventListener('click', () => attempt('thread-status', () => setConversationStatus(button.dataset.status ?? 'open')));
}
byId('delete').addEventListener('click', () => attempt('thread-status', remove));
byId('alert-test').addEventListener('click', () => attempt('alert-result', testAlert));
byId('topic-close').addEventListener('click', () => attempt('forum-status', () => setTopicStatus('closed')));
byId('topic-open').addEventListener('click', () => attempt('forum-status', () => setTopicStatus('open')));
onSubmit('announce', 'forum-status', announce);
byId('invite').addEventListener('click', () => attempt('forum-status', invite));
byId('sign-out').addEventListener('click', signOut);
byId('keys-open').addEventListener('click', () => byId<HTMLDialogElement>('keys').showModal());
byId('keys-close').addEventListener('click', () => byId<HTMLDialogElement>('keys').close());
for (const [id, url] of [['back', '/admin/'], ['nav-inbox', '/admin/'], ['nav-forum', '/admin/forum']] as const) {
  byId(id).addEventListener('click', (event) => {
    if (token) followInPlace(event, url);
  });
}
window.addEventListener('popstate', () => {
  if (token) attempt('list-status', applyRoute);
});
document.addEventListener('keydown', onKey);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && threadStale) attempt('thread-status', reloadThread);
});
// Ages ("5 min") move on by themselves.
window.setInterval(() => {
  for (const node of document.querySelectorAll<HTMLTimeElement>('#conversations time')) node.textContent = age(node.dateTime);
}, 60_000);

const remembered = sessionStorage.getItem(TOKEN_KEY);
if (remembered) {
  // A reload keeps the session: no sign-in form flashes while the kept token is checked.
  byId('login').hidden = true;
  void signIn(remembered, true);
}
