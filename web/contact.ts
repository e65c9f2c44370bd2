import type { CreationReceipt, ReplyReceipt, VisitorConversation } from './api-types.ts';
import { api, byId, el, errorText, formatTime, randomHex } from './dom.ts';

interface Session {
  id: string;
  token: string;
}
interface Pending {
  token: string;
  message: string;
  name: string;
  invitation_id: string;
}
interface PendingReply {
  conversation: string;
  id: string;
  message: string;
}

const POLL_MS = 15_000;
const PENDING = 'parley.pending';
const PENDING_REPLY = 'parley.pendingReply';
const CURRENT = 'parley.current';
const KEY_PATTERN = /^parley1\.([0-9a-f-]{36})\.([0-9a-fA-F]{64})$/;

let session: Session | null = null;
let etag: string | undefined;
let timer: number | undefined;

/** The access token (recovery key) the page shows: one string holding the conversation id and its access token. */
export function recoveryKey({ id, token }: Session): string {
  return `parley1.${id}.${token}`;
}

function parseKey(text: string): Session | null {
  const match = KEY_PATTERN.exec(text.trim());
  return match ? { id: match[1] ?? '', token: (match[2] ?? '').toLowerCase() } : null;
}

function readJson<T>(name: string): T | null {
  const raw = sessionStorage.getItem(name);
  try {
    return raw ? (JSON.parse(raw) as T) : null;
  } catch {
    return null;
  }
}

function setStatus(id: string, text: string, isError = false): void {
  const node = byId(id);
  node.textContent = text;
  node.classList.toggle('error', isError);
}

function render(conversation: VisitorConversation): void {
  const list = byId<HTMLOListElement>('messages');
  list.replaceChildren(
    ...conversation.messages.map((message) => {
      const who = message.role === 'admin' ? 'Operator' : 'You';
      const seen = message.seen_at ? ` · seen ${formatTime(message.seen_at)}` : '';
      return el(
        'li',
        { className: `message ${message.role}` },
        el('div', { className: 'meta', text: `${who} · ${formatTime(message.created_at)}${seen}` }),
        el('p', { className: 'body', text: message.body }),
      );
    }),
  );
  const open = conversation.status === 'open';
  byId<HTMLFormElement>('reply-form').hidden = !open;
  setStatus('thread-status', open ? 'The operator will answer here; this page checks for replies every 15 seconds.' : `This conversation is ${conversation.status}.`);
}

async function refresh(): Promise<void> {
  if (!session) return;
  try {
    const result = await api<VisitorConversation>('GET', `/api/conversations/${session.id}`, { token: session.token, etag });
    if (result.status === 304) return;
    if (result.status === 200 && result.body) {
      etag = result.etag ?? undefined;
      render(result.body);
    } else if (result.status === 404 || result.status === 401) {
      setStatus('thread-status', 'This conversation no longer exists, or the access token (recovery key) is wrong.', true);
      sessionStorage.removeItem(CURRENT);
      stopPolling();
    }
  } catch {
    setStatus('thread-status', 'Could not reach the server; trying again shortly.', true);
  }
}

function stopPolling(): void {
  if (timer !== undefined) window.clearInterval(timer);
  timer = undefined;
}

function startPolling(): void {
  stopPolling();
  if (document.visibilityState === 'visible') timer = window.setInterval(() => void refresh(), POLL_MS);
}

function open(next: Session): void {
  session = next;
  etag = undefined;
  sessionStorage.setItem(CURRENT, JSON.stringify(next));
  byId<HTMLInputElement>('key').value = recoveryKey(next);
  byId('conversation').hidden = false;
  byId('compose').hidden = true;
  byId('resume').hidden = true;
  void refresh();
  startPolling();
}

async function createConversation(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  const message = byId<HTMLTextAreaElement>('message').value;
  const name = byId<HTMLInputElement>('name').value;
  const invitation = byId<HTMLInputElement>('invitation').value;
  // The token is made and stored before the first attempt, so a retry after a lost answer reuses it.
  let pending = readJson<Pending>(PENDING);
  if (!pending || pending.message !== message || pending.name !== name || pending.invitation_id !== invitation) {
    pending = { token: randomHex(32), message, name, invitation_id: invitation };
    sessionStorage.setItem(PENDING, JSON.stringify(pending));
  }
  const body: Record<string, string> = { message, client_access_token: pending.token };
  if (name.trim()) body.name = name;
  if (invitation.trim()) body.invitation_id = invitation;
  const button = byId<HTMLButtonElement>('send');
  button.disabled = true;
  setStatus('compose-status', 'Sending…');
  try {
    const result = await api<CreationReceipt>('POST', '/api/conversations', { body });
    if ((result.status === 201 || result.status === 200) && result.body) {
      sessionStorage.removeItem(PENDING);
      setStatus('compose-status', '');
      open({ id: result.body.conversation_id, token: pending.token });
    } else {
      setStatus('compose-status', errorText(result), true);
    }
  } catch {
    setStatus('compose-status', 'The message may not have arrived (network error). Press Send again: it will not be sent twice.', true);
  } finally {
    button.disabled = false;
  }
}

async function sendReply(event: SubmitEvent): Promise<void> {
  event.preventDefault();
  if (!session) return;
  const field = byId<HTMLTextAreaElement>('reply');
  const message = field.value;
  let pending = readJson<PendingReply>(PENDING_REPLY);
  if (!pending || pending.conversation !== session.id || pending.message !== message) {
    pending = { conversation: session.id, id: randomHex(16), message };
    sessionStorage.setItem(PENDING_REPLY, JSON.stringify(pending));
  }
  const button = byId<HTMLButtonElement>('reply-send');
  button.disabled = true;
  setStatus('reply-status', 'Sending…');
  try {
    const result = await api<ReplyReceipt>('POST', `/api/conversations/${session.id}/messages`, {
      token: session.token,
      body: { message, client_message_id: pending.id },
    });
    if (result.status === 201 || result.status === 200) {
      sessionStorage.removeItem(PENDING_REPLY);
      field.value = '';
      setStatus('reply-status', '');
      await refresh();
    } else {
      setStatus('reply-status', errorText(result), true);
    }
  } catch {
    setStatus('reply-status', 'Network error: press Send again; the reply will not be doubled.', true);
  } finally {
    button.disabled = false;
  }
}

function resume(event: SubmitEvent): void {
  event.preventDefault();
  const parsed = parseKey(byId<HTMLInputElement>('recovery').value);
  if (!parsed) {
    setStatus('resume-status', 'That is not an access token (recovery key) from this page: it starts with "parley1.".', true);
    return;
  }
  open(parsed);
}

async function copyKey(): Promise<void> {
  const input = byId<HTMLInputElement>('key');
  try {
    await navigator.clipboard.writeText(input.value);
    byId('copy').textContent = 'Copied';
  } catch {
    input.select();
    byId('copy').textContent = 'Select and copy';
  }
}

byId<HTMLFormElement>('contact-form').addEventListener('submit', (event) => void createConversation(event));
byId<HTMLFormElement>('reply-form').addEventListener('submit', (event) => void sendReply(event));
byId<HTMLFormElement>('resume-form').addEventListener('submit', resume);
byId('copy').addEventListener('click', () => void copyKey());
document.addEventListener('visibilitychange', () => {
  if (!session) return;
  if (document.visibilityState === 'visible') {
    void refresh();
    startPolling();
  } else {
    stopPolling();
  }
});

const saved = readJson<Session>(CURRENT);
if (saved) open(saved);
