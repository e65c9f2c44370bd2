import type { CategoryList, ForumMessage, TopicList, TopicPage } from './api-types.ts';
import { api, byId, el, errorText, formatTime } from './dom.ts';

let category = '';
let cursor: string | null = null;
let before: string | null = null;
let topicId: string | null = null;

function fail(text: string): void {
  const node = byId('forum-status');
  node.textContent = text;
  node.classList.add('error');
}

async function loadCategories(): Promise<void> {
  const result = await api<CategoryList>('GET', '/api/forum/categories');
  if (result.status !== 200) return fail(errorText(result));
  const chips = [{ slug: '', title: 'All', topic_count: -1 }, ...(result.body?.categories ?? [])].map((item) => {
    const label = item.topic_count >= 0 ? `${item.title} (${item.topic_count})` : item.title;
    const button = el('button', { className: 'chip', text: label, attrs: { type: 'button', 'data-slug': item.slug } });
    button.addEventListener('click', () => {
      category = item.slug;
      byId('topics-title').textContent = item.slug ? item.title : 'Topics';
      showList();
      void loadTopics(true);
    });
    return el('li', {}, button);
  });
  byId('categories').replaceChildren(...chips);
}

async function loadTopics(reset: boolean): Promise<void> {
  if (reset) cursor = null;
  const query = new URLSearchParams({ limit: '30' });
  if (category) query.set('category', category);
  if (cursor) query.set('cursor', cursor);
  const result = await api<TopicList>('GET', `/api/forum/topics?${query}`);
  if (result.status !== 200) return fail(errorText(result));
  const rows = (result.body?.topics ?? []).map((topic) => {
    const button = el('button', { className: 'link', text: topic.title, attrs: { type: 'button' } });
    button.addEventListener('click', () => void openTopic(topic.topic_id, true));
    return el(
      'li',
      {},
      button,
      el('div', { className: 'meta', text: `${topic.category} · ${topic.status} · ${topic.message_count} messages · ${formatTime(topic.updated_at)}` }),
      ...(topic.summary ? [el('p', { className: 'summary', text: topic.summary })] : []),
    );
  });
  const list = byId('topics');
  if (reset) list.replaceChildren(...rows);
  else list.append(...rows);
  if (reset && rows.length === 0) list.append(el('li', { className: 'meta', text: 'No topics yet.' }));
  cursor = result.body?.next_cursor ?? null;
  byId('more-topics').hidden = cursor === null;
}

function postItem(post: ForumMessage): HTMLLIElement {
  const author =
    post.sender_role === 'moderator'
      ? el('span', { className: 'badge moderator', text: 'Moderator' })
      : el('span', { className: 'author', text: post.sender_display_name || '—' });
  return el(
    'li',
    { className: `message ${post.sender_role}` },
    el('div', { className: 'meta' }, author, document.createTextNode(` · ${formatTime(post.created_at)}`)),
    el('p', { className: 'body', text: post.message }),
  );
}

async function openTopic(id: string, reset: boolean): Promise<void> {
  if (reset) {
    topicId = id;
    before = null;
  }
  const query = before ? `?before=${encodeURIComponent(before)}` : '';
  const result = await api<TopicPage>('GET', `/api/forum/topics/${id}${query}`);
  if (result.status !== 200 || !result.body) return fail(errorText(result));
  const page = result.body;
  byId('topic-title').textContent = page.topic.title;
  byId('topic-summary').textContent = `${page.topic.category} · ${page.topic.status}${page.topic.summary ? ` · ${page.topic.summary}` : ''}`;
  const items = page.messages.map(postItem);
  const posts = byId('posts');
  if (reset) posts.replaceChildren(...items);
  else posts.prepend(...items);
  before = page.next_before;
  byId('older').hidden = before === null;
  byId('topics-section').hidden = true;
  byId('topic-section').hidden = false;
  if (reset) history.replaceState(null, '', `#topic=${id}`);
}

function showList(): void {
  topicId = null;
  byId('topic-section').hidden = true;
  byId('topics-section').hidden = false;
  history.replaceState(null, '', '/forum/');
}

byId('back').addEventListener('click', showList);
byId('more-topics').addEventListener('click', () => void loadTopics(false));
byId('older').addEventListener('click', () => {
  if (topicId) void openTopic(topicId, false);
});

void loadCategories();
void loadTopics(true);
const linked = /^#topic=([0-9a-f-]{36})$/.exec(location.hash);
if (linked?.[1]) void openTopic(linked[1], true);
