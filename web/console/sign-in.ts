import type { InboxOverview } from '../api-types.ts';
import { api, byId, type ApiResult } from '../dom.ts';
import { openEventStream } from '../event-stream.ts';
import { attempt, setStatus, whenSignedOut } from './api.ts';
import { loadConversations } from './inbox-list.ts';
import { onEvent, setupNotifyButton, streamState } from './live.ts';
import { applyRoute } from './navigation.ts';
import { loadNotifications, loadPushState } from './notifications.ts';
import { loadLabels, renderOverview } from './overview.ts';
import { state, TITLE, TOKEN_KEY } from './state.ts';

function signInSentence(status: number): string {
  if (status === 401) return 'That token was not accepted. Check it (it is the ADMIN_TOKEN the service was started with) and try again.';
  if (status === 429) return 'Too many wrong tokens were tried from here. Wait a few minutes, then try again.';
  if (status === 503) return 'The service has no administrator token configured yet: set ADMIN_TOKEN and restart it.';
  return `The server could not check the token just now (it answered ${status}). Try again in a moment.`;
}

function showSignedIn(signedIn: boolean): void {
  byId('console').hidden = !signedIn;
  byId('login').hidden = signedIn;
  for (const node of document.querySelectorAll<HTMLElement>('.signed-in')) node.hidden = !signedIn;
  for (const node of document.querySelectorAll<HTMLElement>('.signed-out')) node.hidden = signedIn;
}

export async function signIn(candidate: string, remembered: boolean): Promise<void> {
  state.token = candidate;
  let result: ApiResult<InboxOverview>;
  try {
    result = await api<InboxOverview>('GET', '/api/admin/overview', { token: state.token });
  } catch {
    state.token = '';
    byId('login').hidden = false;
    setStatus('login-status', 'Could not reach the server. Check the connection and try again.', true);
    return;
  }
  if (result.status !== 200) {
    state.token = '';
    sessionStorage.removeItem(TOKEN_KEY);
    byId('login').hidden = false;
    setStatus('login-status', remembered && result.status === 401 ? 'Your session has ended: sign in again.' : signInSentence(result.status), true);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, state.token);
  byId<HTMLInputElement>('admin-token').value = '';
  setStatus('login-status', '');
  showSignedIn(true);
  renderOverview(result.body);
  setupNotifyButton();
  state.stopStream = openEventStream({ token: state.token, onEvent, onState: (stream) => streamState(stream, showLogin) });
  attempt('list-status', async () => {
    await loadLabels();
    await Promise.all([loadConversations(), loadNotifications(), loadPushState(), applyRoute()]);
  });
}

export function showLogin(message: string): void {
  state.stopStream?.();
  state.stopStream = undefined;
  state.token = '';
  sessionStorage.removeItem(TOKEN_KEY);
  showSignedIn(false);
  document.title = TITLE;
  setStatus('login-status', message, true);
  byId('admin-token').focus();
}
whenSignedOut(showLogin);

export function signOut(): void {
  state.stopStream?.();
  sessionStorage.removeItem(TOKEN_KEY);
  // A fresh page: nothing of the inbox stays in this tab's memory or DOM.
  window.location.replace('/admin/');
}
