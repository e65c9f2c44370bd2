import { byId } from '../dom.ts';
import { RESET_EVENT, type StreamEvent, type StreamState } from '../event-stream.ts';
import { attempt, setStatus } from './api.ts';
import { loadConversations } from './inbox-list.ts';
import { refreshForum } from './moderation.ts';
import { conversationUrl, navigate } from './navigation.ts';
import { loadOverview } from './overview.ts';
import { state } from './state.ts';
import { reloadThread } from './thread.ts';
import { toastNews } from './toast.ts';

let inboxTimer: number | undefined;
let forumTimer: number | undefined;
let threadTouched = false;
const news = new Set<string>();

export function streamState(stream: StreamState, signInAgain: (message: string) => void): void {
  const label = byId('live-status');
  if (stream === 'refused') return signInAgain('The token is no longer accepted (it may have been changed): sign in again.');
  const wasDown = label.dataset.state === 'reconnecting';
  label.dataset.state = stream;
  label.textContent = stream === 'live' ? 'Live' : 'Reconnecting…';
  // Back after a drop: the server replays what it kept, and a full refresh covers the rest.
  if (stream === 'live' && wasDown) scheduleInbox(null);
}

export function onEvent(event: StreamEvent): void {
  if (event.type === RESET_EVENT) {
    // The server no longer keeps the events missed since the last one seen: read everything shown again.
    scheduleInbox(null);
    if (state.forumLoaded) scheduleForum();
  } else if (event.type.startsWith('conversation.')) {
    if ((event.type === 'conversation.created' || event.type === 'conversation.message') && event.conversation_id) news.add(event.conversation_id);
    if (event.type === 'conversation.deleted' && event.conversation_id === state.current) {
      state.current = null;
      navigate('/admin/');
      setStatus('list-status', 'The open conversation was deleted.');
    }
    scheduleInbox(event.conversation_id ?? null);
  } else if (state.forumLoaded) {
    scheduleForum();
  }
}

function scheduleForum(): void {
  window.clearTimeout(forumTimer);
  forumTimer = window.setTimeout(() => attempt('forum-status', refreshForum), 200);
}

/** Bursts of events make one refresh of the list, the overview and (when it changed) the open conversation. */
function scheduleInbox(conversationId: string | null): void {
  if (conversationId === null || conversationId === state.current) threadTouched = true;
  window.clearTimeout(inboxTimer);
  inboxTimer = window.setTimeout(() => {
    const touched = threadTouched;
    threadTouched = false;
    // The news this refresh answers: what arrives while it loads gets the next refresh, which reads after it.
    const batch = [...news];
    news.clear();
    attempt('list-status', async () => {
      // Reading the open conversation marks it read: only while the operator can see it.
      if (touched && state.current) {
        if (document.visibilityState === 'visible') await reloadThread();
        else state.threadStale = true;
      }
      await Promise.all([loadConversations(true), loadOverview()]);
      notifyNews(batch);
    });
  }, 150);
}

/** The new visitor messages of the last burst: a toast while the tab is in front, a notification (when allowed) behind. */
function notifyNews(batch: string[]): void {
  const fresh = batch.flatMap((id) => state.rows.filter((row) => row.id === id && row.last_message_role === 'visitor' && row.unread_count > 0));
  // The open conversation updates in place.
  if (document.visibilityState === 'visible') return toastNews(fresh.filter((row) => row.id !== state.current));
  if (!('Notification' in window) || Notification.permission !== 'granted') return;
  for (const row of fresh) {
    // The name only: a notification can show on a locked screen.
    const notice = new Notification(row.message_count === 1 ? 'New conversation' : 'New message', { body: row.name, tag: row.id });
    notice.addEventListener('click', () => {
      window.focus();
      navigate(conversationUrl(row.id));
    });
  }
}

export function setupNotifyButton(): void {
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
