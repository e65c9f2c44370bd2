import { byId } from '../dom.ts';
import { attempt } from './api.ts';
import { loadForum } from './moderation.ts';
import { state } from './state.ts';
import { closeThread, openThread } from './thread.ts';

const CONVERSATION_PATH = /^\/admin\/conversations\/([0-9a-fA-F-]{36})$/;

export function conversationUrl(id: string): string {
  return `/admin/conversations/${id}`;
}

export function navigate(url: string): void {
  if (url !== window.location.pathname) window.history.pushState(null, '', url);
  attempt('list-status', applyRoute);
}

/** Shows what the address names: the inbox with or without an open conversation, or the forum moderation. */
export async function applyRoute(): Promise<void> {
  const path = window.location.pathname;
  const forum = path === '/admin/forum';
  byId('inbox-view').hidden = forum;
  byId('forum-view').hidden = !forum;
  markCurrent(byId('nav-inbox'), !forum);
  markCurrent(byId('nav-forum'), forum);
  if (forum) {
    if (!state.forumLoaded) await loadForum();
    return;
  }
  const id = CONVERSATION_PATH.exec(path)?.[1]?.toLowerCase() ?? null;
  if (id) await openThread(id);
  else closeThread();
}

export function markCurrent(link: HTMLElement, isCurrent: boolean): void {
  if (isCurrent) link.setAttribute('aria-current', 'page');
  else link.removeAttribute('aria-current');
}

/** Plain clicks on the console's own links change the view in place; other clicks (new tab) do what they always do. */
export function followInPlace(event: MouseEvent, url: string): void {
  if (event.button !== 0 || event.ctrlKey || event.metaKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(url);
}
