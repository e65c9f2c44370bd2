import { byId } from '../dom.ts';
import { attempt } from './api.ts';
import { conversationUrl, navigate } from './navigation.ts';
import { openPicker, slashOpensPicker } from './saved-replies.ts';
import { state } from './state.ts';
import { toggle } from './selection.ts';
import { setConversationStatus } from './thread.ts';

/** The same width as console.css's one-pane layout. */
const PHONE_LAYOUT = '(max-width: 760px)';

function rowLinks(): HTMLAnchorElement[] {
  return [...document.querySelectorAll<HTMLAnchorElement>('#conversations a.row-link')];
}

function moveSelection(step: number): void {
  const links = rowLinks();
  if (links.length === 0) return;
  const focused = links.indexOf(document.activeElement as HTMLAnchorElement);
  const from = focused >= 0 ? focused : links.findIndex((link) => link.dataset.id === state.current);
  const next = from < 0 ? (step > 0 ? 0 : links.length - 1) : Math.min(links.length - 1, Math.max(0, from + step));
  links[next]?.focus();
}

export function onKey(event: KeyboardEvent): void {
  if (event.defaultPrevented || byId('console').hidden) return;
  const target = event.target as HTMLElement;
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && target.id === 'admin-reply-text') {
    event.preventDefault();
    byId<HTMLFormElement>('admin-reply').requestSubmit();
    return;
  }
  if (event.key === '/' && !event.ctrlKey && !event.metaKey && !event.altKey && target.id === 'admin-reply-text' && slashOpensPicker(target as HTMLTextAreaElement)) {
    event.preventDefault();
    openPicker();
    return;
  }
  if (target.closest('input, textarea, select, [contenteditable="true"]')) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  const keys = byId<HTMLDialogElement>('keys');
  if (event.ctrlKey || event.metaKey || event.altKey || keys.open || byId<HTMLDialogElement>('saved').open || !byId('forum-view').hidden) return;
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
      const link = rowLinks().find((candidate) => candidate.dataset.id === state.current) ?? rowLinks()[0];
      if (link) act(() => navigate(conversationUrl(link.dataset.id ?? '')));
      return;
    }
    case 'x': {
      const focused = (document.activeElement as HTMLElement | null)?.dataset?.id ?? state.current;
      if (focused) act(() => toggle(focused, false));
      return;
    }
    case 'r':
      if (state.current && !byId('admin-reply').hidden) act(() => byId('admin-reply-text').focus());
      return;
    case 'e':
      if (state.current && state.currentStatus !== 'closed') act(() => attempt('thread-status', () => setConversationStatus('closed')));
      return;
    case '/':
      return act(() => byId('q').focus());
    case '?':
      return act(() => keys.showModal());
    case 'Escape':
      // Only where the list is out of sight: on a wide screen the list is beside the thread already.
      if (state.current && window.matchMedia(PHONE_LAYOUT).matches) act(() => navigate('/admin/'));
      return;
  }
}
