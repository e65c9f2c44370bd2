import { createHash } from 'node:crypto';
import webPush from 'web-push';
import { errorCode } from '../http/post-json.ts';
import type { Command, Store } from '../store/store.ts';
import type { AlertOutcome } from './alerts.ts';
import { deliveryFailure, excerptLine, type AlertChannel, type AlertMessage, type MessageKind } from './channel.ts';

export interface VapidKeys {
  publicKey: string;
  privateKey: string;
  subject: string;
}

/** Browsers that opted in; more than this many is a mistake, and the oldest are not sent to. */
const MAX_SUBSCRIPTIONS = 20;
/** A push not delivered within a day is stale news. */
const TTL_SECONDS = 86_400;
const URGENCY: Record<MessageKind, 'high' | 'normal'> = { new: 'high', reminder: 'high', reply: 'normal', owner_bridge: 'normal', digest: 'normal', test: 'high' };

/** What the service worker (web/push-worker.ts) reads from a push. */
export interface PushPayload {
  title: string;
  body: string;
  /** Opens on a click: the signed link when there is one, else the console. */
  url: string;
  /** One notification per conversation: a newer one replaces the older. */
  tag: string;
}

const forgetSubscription: Command<{ endpoint: string }, void> = async (trx, { endpoint }) => {
  await trx.deleteFrom('alert_push_subscriptions').where('endpoint', '=', endpoint).execute();
};

/**
 * Web Push to the browsers where the operator opted in, encrypted (aes128gcm) and signed (VAPID)
 * by web-push, and sent here with a timeout, no redirect followed and the answer's body unread. A
 * subscription the push service says is gone (404, 410) is forgotten.
 */
export class WebPushChannel implements AlertChannel {
  readonly name = 'web_push';

  constructor(
    private readonly store: Store,
    private readonly vapid: VapidKeys,
    private readonly timeoutMs: number,
  ) {}

  /** The keys exist on every embedded store; until a browser opts in, an alert is not worth a budget, a log line and a stored outcome. */
  async hasRecipients(): Promise<boolean> {
    const row = await this.store.db.selectFrom('alert_push_subscriptions').select('endpoint').limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async send(message: AlertMessage): Promise<AlertOutcome> {
    const subscriptions = await this.store.db
      .selectFrom('alert_push_subscriptions')
      .select(['endpoint', 'p256dh', 'auth'])
      .orderBy('created_at', 'desc')
      .limit(MAX_SUBSCRIPTIONS)
      .execute();
    if (subscriptions.length === 0) return { sent: false, reason: 'not_configured', detail: 'No browser has opted in to Web Push yet.' };
    const payload = JSON.stringify(this.payloadOf(message));
    const results = await Promise.all(
      subscriptions.map((subscription) => this.push({ endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } }, payload, message.kind)),
    );
    const delivered = results.filter((result) => result === 'sent').length;
    if (delivered > 0) return { sent: true };
    return deliveryFailure(`No push service accepted the alert (${[...new Set(results)].join(', ')}).`);
  }

  private payloadOf(message: AlertMessage): PushPayload {
    const body = message.excerpt ? `${message.text}\n${excerptLine(message.excerpt)}` : message.text;
    const tag = message.thread === undefined ? message.kind : createHash('sha256').update(message.thread).digest('hex').slice(0, 16);
    return { title: 'Parley', body, url: message.link ?? '/admin', tag };
  }

  /** One push; its outcome in a word, never the endpoint (a capability of the push service). */
  private async push(subscription: webPush.PushSubscription, payload: string, kind: MessageKind): Promise<string> {
    let details;
    try {
      details = webPush.generateRequestDetails(subscription, payload, {
        vapidDetails: this.vapid,
        TTL: TTL_SECONDS,
        urgency: URGENCY[kind],
        contentEncoding: 'aes128gcm',
      });
    } catch {
      return 'invalid subscription';
    }
    try {
      const response = await fetch(details.endpoint, {
        method: 'POST',
        headers: details.headers as Record<string, string>,
        body: new Uint8Array(details.body),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await response.body?.cancel().catch(() => undefined);
      if (response.status === 404 || response.status === 410) {
        await this.store.write(forgetSubscription, { endpoint: subscription.endpoint });
        return 'gone';
      }
      return response.status >= 200 && response.status < 300 ? 'sent' : `HTTP ${response.status}`;
    } catch (error) {
      const code = errorCode(error);
      return code === 'TimeoutError' ? 'timeout' : code;
    }
  }
}
