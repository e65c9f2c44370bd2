import type { CreationReceipt, ReplyReceipt, VisitorConversation } from './api-types.ts';
import { noticeAnswer, offerAnswerNotice } from './answer-notice.ts';
import { postWithProof } from './proof-of-work.ts';
import { api, byId, earlyAnswerPause, el, errorText, formatTime, jittered, messageBody, randomHex, sendOnCtrlEnter } from './dom.ts';
import { parseKey, recoveryKey, type Session } from './recovery-key.ts';

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

/** How long one read waits on the server for a change (?wait=, whole seconds). */
const WAIT_SECONDS = 25;
const RETRY_MS = [1_000, 2_000, 5_000, 10_000, 15_000];
const PENDING = 'parley.pending';
const PENDING_REPLY = 'parley.pendingReply';
const CURRENT = 'parley.current';

let session: Session | null = null;
let etag: string | undefined;
/** Bumped whenever the conversation shown changes: a read loop of an earlier one stops. */
let generation = 0;
/** The operator messages already shown: only later ones are announced. */
let shownReplies: Set<string> | null = null;
let lastStatus: string | null = null;
let wake: (() => void) | undefined;

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
        messageBody(message),
      );
    }),
  );
  announce(conversation);
  const open = conversation.status === 'open';
  byId<HTMLFormElement>('reply-form').hidden = !open;
  byId('closed').hidden = open;
  byId('closed-text').textContent =
    conversation.status === 'closed'
      ? 'The operator closed this conversation: it takes no more replies. To write again, start another conversation below; you may mention this one.'
      : 'This conversation takes no more replies. To write again, start another conversation below.';
  setStatus('thread-status', open ? 'The operator will answer here; a reply appears on this page as soon as it is sent.' : '');
}

/** Tells screen readers of what arrived since the last render: operator replies (with a notification if asked for), and a closing. */
function announce(conversation: VisitorConversation): void {
  const replies = conversation.messages.filter((message) => message.role === 'admin');
  const news: string[] = [];
  const shown = shownReplies;
  if (shown !== null) {
    const fresh = replies.filter((message) => !shown.has(message.id));
    for (const message of fresh) news.push(`The operator replied: ${message.body}`);
    if (fresh.length > 0) noticeAnswer();
    if (lastStatus === 'open' && conversation.status !== 'open') news.push('The conversation was closed.');
  }
  shownReplies = new Set(replies.map((message) => message.id));
  lastStatus = conversation.status;
  if (news.length > 0) byId('replies-live').textContent = news.join(' ');
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = window.setTimeout(resolve, ms);
    wake = () => {
      window.clearTimeout(timer);
      resolve();
    };
  });
}

/** One read; with `wait`, held by the server until the conversation changes or the seconds pass (304). */
async function read(current: Session, wait: boolean): Promise<'changed' | 'same' | 'gone' | 'retry'> {
  const controller = new AbortController();
  // A connection that died silently never answers: give up a little after the server would have.
  const timeout = window.setTimeout(() => controller.abort(), (WAIT_SECONDS + 10) * 1000);
  try {
    const held = wait && etag !== undefined;
    const url = `/api/conversations/${current.id}${held ? `?wait=${WAIT_SECONDS}` : ''}`;
    const started = performance.now();
    const result = await api<VisitorConversation>('GET', url, { token: current.token, etag, signal: controller.signal });
    if (session !== current) return 'same';
    // Not held (the server is full, or a proxy answered): asking again at once would only spin.
    const early = result.status === 304 && held ? earlyAnswerPause(result.retryAfter, started) : undefined;
    if (early !== undefined) await pause(early);
    if (result.status === 304) return 'same';
    if (result.status === 200 && result.body) {
      etag = result.etag ?? undefined;
      render(result.body);
      return 'changed';
    }
    if (result.status === 404 || result.status === 401) {
      setStatus('thread-status', 'This conversation no longer exists, or the key is wrong.', true);
      sessionStorage.removeItem(CURRENT);
      return 'gone';
    }
    return 'retry';
  } finally {
    window.clearTimeout(timeout);
  }
}

/**
 * Follows the conversation for as long as it is shown: each read waits on the server for the next
 * change, so the operator's answer appears as it is sent. After a network drop it tries again,
 * further apart each time, and at once when the browser says it is back online.
 */
async function follow(current: Session, mine: number): Promise<void> {
  let failures = 0;
  while (session === current && generation === mine) {
    try {
      const outcome = await read(current, true);
      if (outcome === 'gone') return;
      if (failures > 0) setStatus('thread-status', 'Connected again.');
      failures = 0;
      if (outcome === 'retry') await pause(jittered(5_000));
    } catch {
      if (session !== current || generation !== mine) return;
      setStatus('thread-status', 'Connection lost: trying again. Nothing you have sent is lost.', true);
      await pause(jittered(RETRY_MS[Math.min(failures, RETRY_MS.length - 1)] ?? 15_000));
      failures += 1;
    }
  }
}

async function refresh(): Promise<void> {
  if (!session) return;
  try {
    await read(session, false);
  } catch {
    // The loop in follow() reports and recovers.
  }
}

function open(next: Session): void {
  session = next;
  etag = undefined;
  shownReplies = null;
  lastStatus = null;
  generation += 1;
  sessionStorage.setItem(CURRENT, JSON.stringify(next));
  byId<HTMLInputElement>('key').value = recoveryKey(next);
  byId('copy').textContent = 'Copy';
  byId('messages').replaceChildren();
  byId('replies-live').textContent = '';
  byId('conversation').hidden = false;
  byId('compose').hidden = true;
  byId('resume').hidden = true;
  void follow(next, generation);
}

/** Back to the forms: this tab forgets the conversation (its access token still opens it). */
function startAnother(): void {
  session = null;
  generation += 1;
  wake?.();
  sessionStorage.removeItem(CURRENT);
  byId('conversation').hidden = true;
  byId('compose').hidden = false;
  byId('resume').hidden = false;
  byId<HTMLFormElement>('contact-form').reset();
  byId<HTMLFormElement>('resume-form').reset();
  setStatus('compose-status', '');
  setStatus('resume-status', '');
  byId('message').focus();
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
    const result = await postWithProof<CreationReceipt>('/api/conversations', body, () => setStatus('compose-status', 'Sending… (solving a short anti-spam puzzle first)'));
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
    setStatus('resume-status', 'That is not a key from this page: a key starts with "parley1.".', true);
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
byId('another').addEventListener('click', startAnother);
// Back online: the waiting loop tries again now rather than at the end of its pause.
window.addEventListener('online', () => wake?.());

const saved = readJson<Session>(CURRENT);
if (saved) open(saved);

offerAnswerNotice();
sendOnCtrlEnter('message', 'contact-form');
sendOnCtrlEnter('reply', 'reply-form');
