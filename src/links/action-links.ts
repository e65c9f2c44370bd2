import { createHmac } from 'node:crypto';
import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { safeEqual, sha256 } from '../tokens.ts';
import { parseThread, type Thread } from './threads.ts';

/** Where the link page lives; the capability is the one path segment after it. */
export const ACTION_PATH = '/act/';

/** What a link in a request came to. */
export type LinkCheck = { ok: true; thread: Thread; expiresAt: number } | { ok: false; reason: 'invalid' | 'expired' };

const KIND_BYTE = { conversation: 1, bridge: 2 } as const;
const EXPIRY_BYTES = 6;

const uuidBytes = (id: string) => Buffer.from(id.replaceAll('-', ''), 'hex');

function uuidText(bytes: Buffer): string {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * The payload in bytes, so that a link fits one path segment within the router's parameter limit
 * (100 characters): the thread's kind, its ids and the expiry in milliseconds.
 */
function encodePayload(thread: Thread, expiresAt: number): string {
  const ids = thread.kind === 'conversation' ? [thread.conversationId] : [thread.topicId, thread.agentId];
  const expiry = Buffer.alloc(EXPIRY_BYTES);
  expiry.writeUIntBE(expiresAt, 0, EXPIRY_BYTES);
  return Buffer.concat([Buffer.from([KIND_BYTE[thread.kind]]), ...ids.map(uuidBytes), expiry]).toString('base64url');
}

function decodePayload(payload: string): { thread: Thread; expiresAt: number } | undefined {
  const bytes = Buffer.from(payload, 'base64url');
  const idCount = bytes[0] === KIND_BYTE.conversation ? 1 : bytes[0] === KIND_BYTE.bridge ? 2 : 0;
  if (idCount === 0 || bytes.length !== 1 + 16 * idCount + EXPIRY_BYTES) return undefined;
  const ids = Array.from({ length: idCount }, (_, index) => uuidText(bytes.subarray(1 + 16 * index, 17 + 16 * index)));
  const expiresAt = bytes.readUIntBE(1 + 16 * idCount, EXPIRY_BYTES);
  const thread: Thread = idCount === 1 ? { kind: 'conversation', conversationId: ids[0]! } : { kind: 'bridge', topicId: ids[0]!, agentId: ids[1]! };
  return { thread, expiresAt };
}

/**
 * Signed one-tap links (issue 30): `<payload>.<signature>`, where the payload is the thread and the
 * moment the link stops working, and the signature an HMAC-SHA-256 of it under ACTION_KEY, a key of
 * its own. A link acts on its thread alone; a new key refuses every link made before it.
 */
export class ActionLinks {
  readonly #key: string | undefined;
  private readonly lifetimeMs: number;
  private readonly publicUrl: string | undefined;

  constructor(
    config: Pick<Config, 'actionKey' | 'actionLinkHours' | 'publicUrl'>,
    private readonly clock: Clock,
  ) {
    this.#key = config.actionKey;
    this.lifetimeMs = config.actionLinkHours * 3_600_000;
    this.publicUrl = config.publicUrl;
  }

  /** The absolute link for a thread, or undefined without a key or a public base URL (PUBLIC_URL) to build it on. */
  urlFor(thread: string): string | undefined {
    if (this.publicUrl === undefined) return undefined;
    const link = this.linkFor(thread);
    return link === undefined ? undefined : `${this.publicUrl}${ACTION_PATH}${link}`;
  }

  /** The path segment that is the capability, or undefined without a key or for a thread of no known form. */
  linkFor(thread: string): string | undefined {
    const parsed = parseThread(thread);
    if (this.#key === undefined || parsed === undefined) return undefined;
    const payload = encodePayload(parsed, this.clock.now() + this.lifetimeMs);
    return `${payload}.${this.sign(payload)}`;
  }

  /** Checks the signature in constant time, then the payload, then the expiry. */
  check(link: string): LinkCheck {
    const [payload, signature, extra] = link.split('.');
    if (this.#key === undefined || !payload || !signature || extra !== undefined || !safeEqual(this.sign(payload), signature)) return { ok: false, reason: 'invalid' };
    const decoded = decodePayload(payload);
    if (!decoded) return { ok: false, reason: 'invalid' };
    if (decoded.expiresAt <= this.clock.now()) return { ok: false, reason: 'expired' };
    return { ok: true, ...decoded };
  }

  /** The form token of a link's page: derived from the link, so only a page made for it carries it. */
  formToken(link: string): string {
    return this.sign(`form|${link}`);
  }

  /**
   * The form body that closes a link's conversation when posted to the link (`urlFor`'s URL), for
   * a client that cannot load the page first: ntfy's Close action. It is the link's own form token,
   * so it adds nothing to what holding the link allows. Undefined for a bridge or a link not ours.
   */
  closeFormFor(url: string): string | undefined {
    const at = url.lastIndexOf(ACTION_PATH);
    const link = at === -1 ? '' : url.slice(at + ACTION_PATH.length);
    const checked = this.check(link);
    if (!checked.ok || checked.thread.kind !== 'conversation') return undefined;
    return new URLSearchParams({ action: 'close', form_token: this.formToken(link) }).toString();
  }

  /** The key a link's actions are counted under (ACTION_LINK): a hash, never the link. */
  limitKey(link: string): string {
    return sha256(link);
  }

  private sign(text: string): string {
    return createHmac('sha256', this.#key!).update(text).digest('base64url');
  }
}
