/** Small DOM helpers: every piece of text goes in through textContent, never as markup (messageBody excepted). */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { className?: string; text?: string; attrs?: Record<string, string> } = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (props.className) node.className = props.className;
  if (props.text !== undefined) node.textContent = props.text;
  for (const [name, value] of Object.entries(props.attrs ?? {})) node.setAttribute(name, value);
  node.append(...children);
  return node;
}

export function byId<T extends HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing #${id}`);
  return node as T;
}

export function randomHex(bytes: number): string {
  const values = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(values, (value) => value.toString(16).padStart(2, '0')).join('');
}

export function formatTime(iso: string): string {
  return new Date(iso).toLocaleString();
}

export interface ApiResult<T> {
  status: number;
  body: T | null;
  etag: string | null;
  retryAfter: string | null;
}

/** `ms` stretched by up to half again at random, so that pages answered together do not ask again together. */
export function jittered(ms: number): number {
  return ms * (1 + Math.random() / 2);
}

/**
 * The pause after a held read (`?wait=`, begun at `startedAt`) that answered 304 early, with
 * Retry-After because the server would not hold it, or sooner than a held read can end: its
 * Retry-After, never under 1 s, jittered. Undefined when the read was held its time: ask again.
 */
export function earlyAnswerPause(retryAfter: string | null, startedAt: number): number | undefined {
  if (retryAfter === null && performance.now() - startedAt >= 1_000) return undefined;
  const seconds = Number(retryAfter);
  return jittered(1000 * Math.max(1, Number.isFinite(seconds) ? seconds : 1));
}

/** fetch with JSON in and out; a network failure throws, an HTTP error resolves with its status. */
export async function api<T>(
  method: string,
  url: string,
  options: { token?: string; body?: unknown; etag?: string | undefined; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<ApiResult<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.etag) headers['if-none-match'] = options.etag;
  const response = await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), cache: 'no-store', signal: options.signal ?? null });
  const text = response.status === 304 ? '' : await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as T) : null, etag: response.headers.get('etag'), retryAfter: response.headers.get('retry-after') };
}

export function errorText(result: ApiResult<unknown>): string {
  const body = result.body as { error?: string } | null;
  return body?.error ?? `The server answered ${result.status}.`;
}

/**
 * A message's text: the server's sanitized rendering (body_html, from the one Markdown renderer the
 * forum uses too) when the message has one, otherwise the plain text.
 */
export function messageBody(message: { body: string; body_html?: string }): HTMLElement {
  if (message.body_html === undefined) return el('p', { className: 'body', text: message.body });
  // The only markup a page takes in: sanitized on the server to paragraphs, emphasis, code, lists,
  // quotes and links, and parsed here into an inert document (no script runs, nothing loads) before its nodes are moved over.
  const parsed = new DOMParser().parseFromString(message.body_html, 'text/html');
  return el('div', { className: 'body rendered' }, ...document.adoptNode(parsed.body).childNodes);
}

/** Ctrl+Enter (⌘+Enter) in a message box sends its form, as in the console. */
export function sendOnCtrlEnter(fieldId: string, formId: string): void {
  byId(fieldId).addEventListener('keydown', (event) => {
    if (event.key !== 'Enter' || !(event.ctrlKey || event.metaKey)) return;
    event.preventDefault();
    byId<HTMLFormElement>(formId).requestSubmit();
  });
}
