import { html, type Html } from '../pages/forum/html.ts';
import { showTime } from '../pages/forum/layout.ts';

/** One message as the link page shows it. */
export interface ShownMessage {
  fromOperator: boolean;
  author: string;
  body: string;
  at: number;
}

/** A button that changes the thread (conversationActions). */
export interface ThreadAction {
  action: string;
  label: string;
  danger?: boolean;
}

/** What the link page shows of a thread (read by readThreadView). */
export interface ThreadView {
  heading: string;
  subheading: string;
  messages: ShownMessage[];
  /** Whether a reply can be sent now (a conversation that is closed or spam must be reopened first). */
  canReply: boolean;
  actions: ThreadAction[];
  /** Whether the page offers Block (a conversation; an owner bridge's agent is blocked from the console). */
  blockable: boolean;
}

export interface LinkPageView extends ThreadView {
  style: string;
  /** The form's target: the page's own path. */
  formPath: string;
  formToken: string;
  /** A fresh client_message_id per page: the same form sent twice is one reply. */
  nonce: string;
  notice?: { text: string; error: boolean };
  draft?: string;
  expiresAt: number;
}

/** The actions a conversation offers in its status. */
export function conversationActions(status: string): ThreadAction[] {
  if (status !== 'open') return [{ action: 'open', label: 'Reopen' }];
  return [
    { action: 'close', label: 'Close' },
    { action: 'spam', label: 'Spam', danger: true },
  ];
}

/** What the Block form covers (the blocks feature's scopes a conversation can take) and for how long (its EXPIRIES, or never). */
export const BLOCK_SCOPES = { conversation: 'This conversation', source: 'Its source: every conversation and agent from the address it came from' } as const;
export const BLOCK_EXPIRIES = { '1d': '1 day', '7d': '7 days', '30d': '30 days', never: 'Never (until lifted in the console)' } as const;

const iso = (at: number) => new Date(at).toISOString();

function frame(style: string, title: string, content: Html): string {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<meta name="referrer" content="no-referrer">
<meta name="robots" content="noindex, nofollow">
<title>${title} · Parley</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${style}">
</head>
<body>
<main id="main">
${content}
</main>
</body>
</html>
`.text;
}

function hiddenFields(view: LinkPageView): Html {
  return html`<input type="hidden" name="form_token" value="${view.formToken}"><input type="hidden" name="nonce" value="${view.nonce}">`;
}

/** Block, folded away so that it is not taken by mistake; `details` opens without script. */
function blockForm(view: LinkPageView): Html {
  const scopes = Object.entries(BLOCK_SCOPES).map(
    ([value, label], index) => html`<label class="choice"><input type="radio" name="scope" value="${value}"${index === 0 ? html` checked` : ''}> ${label}</label>`,
  );
  const expiries = Object.entries(BLOCK_EXPIRIES).map(([value, label]) => html`<option value="${value}"${value === '7d' ? html` selected` : ''}>${label}</option>`);
  return html`<details class="card" id="block">
<summary>Block…</summary>
<form method="post" action="${view.formPath}">
${hiddenFields(view)}
<fieldset>
<legend>What to block</legend>
${scopes}
</fieldset>
<label for="block-expiry">For how long</label>
<select id="block-expiry" name="expires_in">${expiries}</select>
<button type="submit" name="action" value="block" class="danger">Block</button>
<p class="hint">What is blocked is answered “not accepted”, never why. Lift a block in the console.</p>
</form>
</details>`;
}

/** The thread, a reply box and the actions, as plain HTML forms: no script. */
export function linkPage(view: LinkPageView): string {
  const messages = view.messages.map(
    (message) => html`<li class="message${message.fromOperator ? ' admin' : ''}"><span class="meta">${message.author} · ${showTime(iso(message.at))}</span><p class="body">${message.body}</p></li>`,
  );
  const notice = view.notice && html`<p class="status${view.notice.error ? ' error' : ''}" role="${view.notice.error ? 'alert' : 'status'}">${view.notice.text}</p>`;
  const reply = view.canReply
    ? html`<form method="post" action="${view.formPath}" class="card" id="reply">
${hiddenFields(view)}
<label for="message">Your reply</label>
<textarea id="message" name="message" rows="5" maxlength="4000" required>${view.draft ?? ''}</textarea>
<button type="submit" name="action" value="reply">Send reply</button>
</form>`
    : html`<p class="card" id="reply">Replies are off while this conversation is not open: reopen it to answer.</p>`;
  const actions =
    view.actions.length > 0 &&
    html`<form method="post" action="${view.formPath}" class="row">
${hiddenFields(view)}
${view.actions.map((action) => html`<button type="submit" name="action" value="${action.action}"${action.danger ? html` class="danger"` : ''}>${action.label}</button> `)}
</form>`;
  return frame(
    view.style,
    view.heading,
    html`<h1>${view.heading}</h1>
<p class="meta">${view.subheading} · <a href="#reply">Reply</a></p>
${notice}
${actions}
<ol class="messages">
${messages}
</ol>
${reply}
${view.blockable && blockForm(view)}
<p class="hint">This page opened from a signed link in an alert; the link stops working at ${showTime(iso(view.expiresAt))}. Keep it to yourself.</p>`,
  );
}

/** A link that does not work: altered, made with an earlier key, expired, or for a thread that is gone. */
export function linkProblemPage(style: string, heading: string, text: string): string {
  return frame(style, heading, html`<h1>${heading}</h1><p>${text}</p><p><a href="/admin/">Open the console</a></p>`);
}
