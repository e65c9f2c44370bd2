import { byId } from '../dom.ts';
import { attempt, setStatus } from './api.ts';
import { onKey } from './keyboard.ts';
import { age, loadConversations, loadMore } from './inbox-list.ts';
import { announce, invite, setTopicStatus } from './moderation.ts';
import { applyRoute, followInPlace } from './navigation.ts';
import { testAlert, togglePush } from './notifications.ts';
import { wireSavedReplies } from './saved-replies.ts';
import { wireSelection } from './selection.ts';
import { signIn, signOut } from './sign-in.ts';
import { state, TOKEN_KEY } from './state.ts';
import { blockCurrent, loadBlocks, revokeToken } from './trust.ts';
import { addNote, reloadThread, remove, reply, review, setConversationStatus } from './thread.ts';
import { wireSound } from './toast.ts';

/** The operator console: this module only wires the page's controls to the modules beside it. */
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
for (const id of ['review-label', 'review-note']) byId(id).addEventListener('input', () => (state.reviewEdited = true));
byId('more').addEventListener('click', () => attempt('list-status', loadMore));
onSubmit('admin-reply', 'thread-status', reply);
onSubmit('review', 'thread-status', review);
onSubmit('note-form', 'thread-status', addNote);
for (const button of document.querySelectorAll<HTMLButtonElement>('[data-status]')) {
  button.addEventListener('click', () => attempt('thread-status', () => setConversationStatus(button.dataset.status ?? 'open')));
}
byId('delete').addEventListener('click', remove);
onSubmit('block-form', 'thread-status', blockCurrent);
byId('revoke-token').addEventListener('click', () => attempt('thread-status', revokeToken));
byId('blocks-panel').addEventListener('toggle', () => {
  if (byId<HTMLDetailsElement>('blocks-panel').open) attempt('blocks-status', loadBlocks);
});
byId('alert-test').addEventListener('click', () => attempt('alert-result', testAlert));
byId('push-toggle').addEventListener('click', () => attempt('push-status', togglePush));
byId('topic-close').addEventListener('click', () => attempt('forum-status', () => setTopicStatus('closed')));
byId('topic-open').addEventListener('click', () => attempt('forum-status', () => setTopicStatus('open')));
onSubmit('announce', 'forum-status', announce);
byId('invite').addEventListener('click', () => attempt('forum-status', invite));
byId('sign-out').addEventListener('click', signOut);
byId('keys-open').addEventListener('click', () => byId<HTMLDialogElement>('keys').showModal());
byId('keys-close').addEventListener('click', () => byId<HTMLDialogElement>('keys').close());
for (const [id, url] of [['back', '/admin/'], ['nav-inbox', '/admin/'], ['nav-forum', '/admin/forum']] as const) {
  byId(id).addEventListener('click', (event) => {
    if (state.token) followInPlace(event, url);
  });
}
window.addEventListener('popstate', () => {
  if (state.token) attempt('list-status', applyRoute);
});
document.addEventListener('keydown', onKey);
wireSavedReplies();
wireSelection();
wireSound();
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'visible' && state.threadStale) attempt('thread-status', reloadThread);
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
