import type {
  BridgeList,
  BridgeSummary,
  BridgeThread,
  ConversationList,
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

/** The administrator token lives in this variable only: never in storage, a cookie or a URL. */
let token = '';
let cursor: string | null = null;
let current: string | null = null;
let currentTopic: string | null = null;

const call = <T>(method: string, url: string, body?: unknown): Promise<ApiResult<T>> => api<T>(method, url, { token, body });

function status(id: string, text: string, isError = false): void {
  const node = byId(id);
  node.textContent = text;
  node.classList.toggle('error', isError);
}

async function signIn(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const input = byId<HTMLInputElement>('admin-token');
  token = input.value.trim();
  const result = await call<InboxOverview>('GET', '/api/admin/overview');
  if (result.status !== 200) {
    token = '';
    status('login-status', errorText(result), true);
    return;
  }
  input.value = '';
  byId('login').hidden = true;
  byId('console').hidden = false;
  await loadLabels();
  await Promise.all([loadOverview(), loadConversations(true), loadTopics(), loadBridges()]);
}

async function loadLabels(): Promise<void> {
  const result = await call<ReviewLabels>('GET', '/api/admin/review-labels');
  const labels = result.body?.labels ?? [];
  byId('f-label').append(...labels.map((label) => el('option', { text: label })));
  byId('review-label').replaceChildren(...labels.map((label) => el('option', { text: label })));
}

async function loadOverview(): Promise<void> {
  const [overview, alerts] = await Promise.all([
    call<InboxOverview>('GET', '/api/admin/overview'),
    call<NotificationSettings>('GET', '/api/admin/notifications'),
  ]);
  const totals = overview.body?.totals ?? {};
  byId('totals').replaceChildren(
    ...Object.entries(totals).map(([name, value]) => el('div', {}, el('dt', { text: name.replaceAll('_', ' ') }), el('dd', { text: String(value) }))),
  );
  byId('alerts-status').textContent = alerts.body?.configured ? 'Telegram alerts are configured.' : 'Telegram alerts are not configured.';
}

async function loadConversations(reset: boolean): Promise<void> {
  if (reset) cursor = null;
  const query = new URLSearchParams({ limit: '50' });
  const statusFilter = byId<HTMLSelectElement>('f-status').value;
  const labelFilter = byId<HTMLSelectElement>('f-label').value;
  if (statusFilter) query.set('status', statusFilter);
  if (labelFilter) query.set('label', labelFilter);
  if (byId<HTMLInputElement>('f-unread').checked) query.set('unread', 'true');
  if (cursor) query.set('cursor', cursor);
  const result = await call<ConversationList>('GET', `/api/admin/conversations?${query}`);
  const items = result.body?.conversations ?? [];
  const rows = items.map((item) => {
    const button = el('button', { className: 'link', text: item.name, attrs: { type: 'button', 'data-id': item.id } });
    button.addEventListener('click', () => void openThread(item.id));
    const badge = item.unread_count > 0 ? [el('span', { className: 'badge', text: String(item.unread_count), attrs: { 'aria-label': 'unread' } })] : [];
    return el(
      'li',
      { className: 'conversation-row' },
      button,
      ...badge,
      el('span', { className: 'meta', text: ` ${item.status} · ${item.review_label} · ${item.message_count} messages · ${formatTime(item.updated_at)}` }),
    );
  });
  const list = byId('conversations');
  if (reset) list.replaceChildren(...rows);
  else list.append(...rows);
  if (reset && rows.length === 0) list.append(el('li', { className: 'meta', text: 'No conversations match.' }));
  cursor = result.body?.next_cursor ?? null;
  byId('more').hidden = cursor === null;
}

async function openThread(id: string): Promise<void> {
  current = id;
  const result = await call<OperatorConversation>('GET', `/api/admin/conversations/${id}`);
  if (result.status !== 200 || !result.body) {
    status('thread-status', errorText(result), true);
    return;
  }
  const { conversation, messages } = result.body;
  byId('thread').hidden = false;
  byId('thread-title').textContent = conversation.name;
  byId('thread-meta').textContent = `${conversation.status} · invitation ${conversation.invitation_id ?? 'none'} · ${conversation.id}`;
  byId('thread-messages').replaceChildren(
    ...messages.map((message) =>
      el(
        'li',
        { className: `message ${message.role}` },
        el('div', { className: 'meta', text: `${message.role === 'admin' ? 'You (operator)' : conversation.name} · ${formatTime(message.created_at)}` }),
        el('p', { className: 'body', text: message.body }),
      ),
    ),
  );
  byId<HTMLSelectElement>('review-label').value = conversation.review_label;
  byId<HTMLInputElement>('review-note').value = conversation.operator_note;
  status('thread-status', '');
  await loadConversations(true);
}

async function act(promise: Promise<ApiResult<unknown>>, done: string): Promise<void> {
  const result = await promise;
  if (result.status >= 400) status('thread-status', errorText(result), true);
  else status('thread-status', done);
}

async function reply(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!current) return;
  const field = byId<HTMLTextAreaElement>('admin-reply-text');
  const result = await call('POST', `/api/admin/conversations/${current}/messages`, { message: field.value, client_message_id: randomHex(16) });
  if (result.status >= 400) return status('thread-status', errorText(result), true);
  field.value = '';
  await openThread(current);
}

async function setConversationStatus(value: string): Promise<void> {
  if (!current) return;
  await act(call('POST', `/api/admin/conversations/${current}/status`, { status: value }), `Status set to ${value}.`);
  await openThread(current);
}

async function remove(): Promise<void> {
  if (!current || !window.confirm('Delete this conversation and every message in it for good?')) return;
  await act(call('DELETE', `/api/admin/conversations/${current}`), 'Deleted.');
  current = null;
  byId('thread').hidden = true;
  await Promise.all([loadConversations(true), loadOverview()]);
}

async function review(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!current) return;
  const label = byId<HTMLSelectElement>('review-label').value;
  const note = byId<HTMLInputElement>('review-note').value;
  await act(call('POST', `/api/admin/conversations/${current}/review`, { label, note }), 'Review saved.');
}

async function testAlert(): Promise<void> {
  const result = await call<TestAlertResult>('POST', '/api/admin/notifications/test');
  byId('alert-result').textContent = result.body?.sent ? 'Test alert sent.' : errorText(result);
}

async function loadTopics(): Promise<void> {
  const result = await call<TopicList>('GET', '/api/admin/forum/topics');
  if (result.status !== 200) return status('forum-status', 'Forum moderation is not available.', true);
  byId('topics').replaceChildren(
    ...(result.body?.topics ?? []).map((topic) => {
      const button = el('button', { className: 'link', text: topic.title, attrs: { type: 'button' } });
      button.addEventListener('click', () => void openTopic(topic.topic_id));
      return el('li', {}, button, el('span', { className: 'meta', text: ` ${topic.category} · ${topic.status} · ${topic.visibility} · ${topic.message_count} posts` }));
    }),
  );
}

async function openTopic(id: string): Promise<void> {
  currentTopic = id;
  const result = await call<ModeratorTopicPage>('GET', `/api/admin/forum/topics/${id}`);
  if (result.status !== 200 || !result.body) return status('forum-status', errorText(result), true);
  byId('topic').hidden = false;
  byId('topic-title').textContent = `${result.body.topic.title} (${result.body.topic.status})`;
  byId('topic-messages').replaceChildren(
    ...result.body.messages.map((post) => {
      const toggle = el('button', { text: post.hidden ? 'Unhide' : 'Hide', attrs: { type: 'button' } });
      toggle.addEventListener('click', () => void hide(post.message_id, !post.hidden));
      const who = post.sender_role === 'moderator' ? 'Moderator' : post.sender_display_name;
      return el(
        'li',
        { className: `message ${post.hidden ? 'hidden-post' : ''}` },
        el('div', { className: 'meta', text: `${who} · ${formatTime(post.created_at)}${post.hidden ? ' · hidden' : ''}` }),
        el('p', { className: 'body', text: post.message }),
        toggle,
      );
    }),
  );
}

async function hide(messageId: string, hidden: boolean): Promise<void> {
  const result = await call('POST', `/api/admin/forum/messages/${messageId}/hide`, { hidden });
  if (result.status >= 400) return status('forum-status', errorText(result), true);
  if (currentTopic) await openTopic(currentTopic);
}

async function setTopicStatus(value: string): Promise<void> {
  if (!currentTopic) return;
  const result = await call('POST', `/api/admin/forum/topics/${currentTopic}/status`, { status: value });
  status('forum-status', result.status >= 400 ? errorText(result) : `Topic ${value}.`, result.status >= 400);
  await Promise.all([openTopic(currentTopic), loadTopics()]);
}

async function announce(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const body = {
    title: byId<HTMLInputElement>('a-title').value,
    summary: byId<HTMLInputElement>('a-summary').value,
    message: byId<HTMLTextAreaElement>('a-message').value,
    client_message_id: randomHex(16),
  };
  const result = await call('POST', '/api/admin/forum/announcements', body);
  if (result.status >= 400) return status('forum-status', errorText(result), true);
  byId<HTMLFormElement>('announce').reset();
  status('forum-status', 'Announcement published.');
  await loadTopics();
}

async function loadBridges(): Promise<void> {
  const result = await call<BridgeList>('GET', '/api/admin/forum/bridges');
  byId('bridges').replaceChildren(
    ...(result.body?.bridges ?? []).map((bridge) => {
      const button = el('button', { className: 'link', text: `${bridge.agent_display_name} in ${bridge.topic_title}`, attrs: { type: 'button' } });
      const thread = el('ol', { className: 'messages' });
      button.addEventListener('click', () => void openBridge(bridge, thread));
      const badge = bridge.unread_count > 0 ? [el('span', { className: 'badge', text: String(bridge.unread_count) })] : [];
      return el('li', {}, button, ...badge, thread);
    }),
  );
}

async function openBridge(bridge: BridgeSummary, thread: HTMLOListElement): Promise<void> {
  const path = `/api/admin/forum/bridges/${bridge.topic_id}/${bridge.agent_id}`;
  const result = await call<BridgeThread>('GET', path);
  const field = el('textarea', { attrs: { rows: '2', maxlength: '4000', 'aria-label': 'Reply to agent' } });
  const send = el('button', { text: 'Reply', attrs: { type: 'button' } });
  send.addEventListener('click', () => {
    void call('POST', `${path}/messages`, { message: field.value, client_message_id: randomHex(16) }).then(() => openBridge(bridge, thread));
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
  byId<HTMLInputElement>('invite-code').value = result.body?.invitation_code ?? errorText(result);
}

async function revoke(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const id = byId<HTMLInputElement>('revoke-id').value.trim();
  if (!id || !window.confirm('Revoke this agent? Its tokens stop working; its posts stay.')) return;
  const result = await call('POST', `/api/admin/peers/${id}/revoke`);
  status('forum-status', result.status >= 400 ? errorText(result) : 'Agent revoked.', result.status >= 400);
}

byId<HTMLFormElement>('login-form').addEventListener('submit', (event) => void signIn(event));
byId<HTMLFormElement>('filters').addEventListener('submit', (event) => {
  event.preventDefault();
  void loadConversations(true);
});
byId('more').addEventListener('click', () => void loadConversations(false));
byId<HTMLFormElement>('admin-reply').addEventListener('submit', (event) => void reply(event));
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-status]')) {
  button.addEventListener('click', () => void setConversationStatus(button.dataset.status ?? 'open'));
}
byId('delete').addEventListener('click', () => void remove());
byId<HTMLFormElement>('review').addEventListener('submit', (event) => void review(event));
byId('alert-test').addEventListener('click', () => void testAlert());
byId('topic-close').addEventListener('click', () => void setTopicStatus('closed'));
byId('topic-open').addEventListener('click', () => void setTopicStatus('open'));
byId<HTMLFormElement>('announce').addEventListener('submit', (event) => void announce(event));
byId('invite').addEventListener('click', () => void invite());
byId<HTMLFormElement>('revoke').addEventListener('submit', (event) => void revoke(event));
