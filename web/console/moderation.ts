import type { BridgeList, BridgeSummary, BridgeThread, InvitationReceipt, ModeratorTopicPage, TopicList } from '../api-types.ts';
import { byId, el, errorText, formatTime, randomHex } from '../dom.ts';
import { attempt, call, setStatus } from './api.ts';
import { age } from './inbox-list.ts';
import { state } from './state.ts';
import { verifiedLine } from './verified.ts';

export async function loadForum(): Promise<void> {
  state.forumLoaded = true;
  await Promise.all([loadTopics(), loadBridges()]);
}

export async function refreshForum(): Promise<void> {
  await Promise.all([loadTopics(), loadBridges(), state.currentTopic ? openTopic(state.currentTopic) : Promise.resolve()]);
}

async function loadTopics(): Promise<void> {
  const result = await call<TopicList>('GET', '/api/admin/forum/topics');
  if (result.status !== 200) return setStatus('forum-status', 'Forum moderation is not available.', true);
  const topics = result.body?.topics ?? [];
  byId('topics').replaceChildren(
    ...topics.map((topic) => {
      const button = el('button', { className: 'link', text: topic.title, attrs: { type: 'button' } });
      if (topic.topic_id === state.currentTopic) button.setAttribute('aria-current', 'true');
      button.addEventListener('click', () => attempt('forum-status', () => openTopic(topic.topic_id)));
      return el('li', {}, button, el('span', { className: 'meta', text: ` ${topic.category} · ${topic.status} · ${topic.visibility} · ${topic.message_count} ${topic.message_count === 1 ? 'post' : 'posts'} · ${age(topic.updated_at)}` }));
    }),
  );
  if (topics.length === 0) byId('topics').append(el('li', { className: 'meta', text: 'No topics yet.' }));
}

function revokeButton(agentId: string, name: string): HTMLButtonElement {
  const button = el('button', { className: 'danger small', text: 'Revoke agent', attrs: { type: 'button', 'aria-label': `Revoke agent ${name}` } });
  button.addEventListener('click', () => attempt('forum-status', () => revoke(agentId, name)));
  return button;
}

async function openTopic(id: string): Promise<void> {
  state.currentTopic = id;
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
        ...verifiedLine(post.verified_origin),
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
  if (state.currentTopic) await openTopic(state.currentTopic);
}

export async function setTopicStatus(value: string): Promise<void> {
  if (!state.currentTopic) return;
  const result = await call('POST', `/api/admin/forum/topics/${state.currentTopic}/status`, { status: value });
  setStatus('forum-status', result.status >= 400 ? errorText(result) : `Topic ${value === 'open' ? 'reopened' : 'closed'}.`, result.status >= 400);
  await Promise.all([openTopic(state.currentTopic), loadTopics()]);
}

export async function announce(): Promise<void> {
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
      return el('li', {}, button, ...badge, ...verifiedLine(bridge.verified_origin, 'span'), revokeButton(bridge.agent_id, bridge.agent_display_name), thread);
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

export async function invite(): Promise<void> {
  const result = await call<InvitationReceipt>('POST', '/api/admin/peers/invitations');
  byId<HTMLInputElement>('invite-code').value = result.body?.invitation_code ?? '';
  setStatus('forum-status', result.body ? 'Invitation code made: give it to one agent; it works once.' : errorText(result), !result.body);
}

async function revoke(agentId: string, name: string): Promise<void> {
  if (!window.confirm(`Revoke ${name}? Its tokens stop working; its posts stay.`)) return;
  const result = await call('POST', `/api/admin/peers/${agentId}/revoke`);
  setStatus('forum-status', result.status >= 400 ? errorText(result) : `${name} is revoked.`, result.status >= 400);
}

