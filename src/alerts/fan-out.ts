import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import { errorCode, OUTBOUND_TIMEOUT_MS } from '../http/post-json.ts';
import type { Limiter } from '../limits/limiter.ts';
import type { Store } from '../store/store.ts';
import {
  alertsOff,
  conversationThread,
  CHANNEL_NAMES,
  type AlertEvent,
  type Alerts,
  type ChannelName,
  type ChannelOutcome,
  type ChannelReport,
  type DeliveryListener,
} from './alerts.ts';
import { BudgetedChannel, type AlertLogger } from './budgeted-channel.ts';
import type { AlertChannel, AlertMessage } from './channel.ts';
import { EmailChannel } from './email.ts';
import { Reminders } from './reminders.ts';
import { ChannelStatus } from './status.ts';
import { TelegramChannel } from './telegram.ts';
import { ALERT_TEXTS } from './texts.ts';
import { WebPushChannel } from './web-push.ts';
import { chatWebhookChannels, NtfyChannel } from './webhook-channels.ts';

const CONVERSATION_PREFIX = conversationThread('');

/** Push services want a contact for the sender; VAPID_SUBJECT names the operator's own. */
const DEFAULT_VAPID_SUBJECT = 'mailto:parley-operator@localhost';

/** How often each instance looks for conversations that waited past REMIND_AFTER. */
const REMINDER_ROUND_MS = 60_000;

/** How many characters of the visitor's message an alert carries with ALERT_INCLUDE_TEXT=true. */
export const EXCERPT_LENGTH = 280;

export interface AlertOptions {
  config: Config;
  store: Store;
  limiter: Limiter;
  clock: Clock;
  logger: AlertLogger;
  /** How long each channel's service gets to answer; tests shorten it. */
  timeoutMs?: number;
  /** The link that opens a conversation or bridge (signed one-tap links); none by default. */
  linkFor?: (thread: string) => string | undefined;
  /** The form body that closes a conversation through its link (ActionLinks.closeFormFor), for ntfy's Close button. */
  closeFormFor?: (link: string) => string | undefined;
}

/** The channels the configuration asks for, each off until its variables are set. */
function configuredChannels(options: AlertOptions, timeoutMs: number): AlertChannel[] {
  const { telegram, alerts } = options.config;
  const channels: AlertChannel[] = [];
  if (telegram.botToken && telegram.chatId) {
    const bot = { botToken: telegram.botToken, chatId: telegram.chatId, apiBase: telegram.apiBase, timeoutMs };
    channels.push(new TelegramChannel(bot, telegram.webhookSecret !== undefined, options.store, options.clock));
  }
  if (alerts.email) channels.push(new EmailChannel(alerts.email, timeoutMs));
  if (alerts.ntfy) channels.push(new NtfyChannel(alerts.ntfy, timeoutMs));
  channels.push(...chatWebhookChannels(alerts, timeoutMs));
  const { publicKey, privateKey, subject } = alerts.webPush;
  if (publicKey && privateKey) {
    const vapid = { publicKey, privateKey, subject: subject ?? DEFAULT_VAPID_SUBJECT };
    channels.push(new WebPushChannel(options.store, vapid, timeoutMs));
  }
  return channels.sort((a, b) => CHANNEL_NAMES.indexOf(a.name) - CHANNEL_NAMES.indexOf(b.name));
}

/** Alerts to every configured channel, or alertsOff when none is. */
export function createAlerts(options: AlertOptions): Alerts {
  const channels = configuredChannels(options, options.timeoutMs ?? OUTBOUND_TIMEOUT_MS);
  return channels.length === 0 ? alertsOff : new FanOutAlerts(options, channels);
}

/** Cuts at a character (never inside a surrogate pair). */
function excerptOf(text: string): string {
  const characters = [...text];
  return characters.length <= EXCERPT_LENGTH ? text : `${characters.slice(0, EXCERPT_LENGTH).join('')}…`;
}

/**
 * Each alert goes to every configured channel, each under budgets of its own: a channel that fails,
 * is slow or is over its budget never holds back another.
 */
export class FanOutAlerts implements Alerts {
  readonly configured = true;
  readonly channels: readonly ChannelName[];
  private readonly listeners = new Set<DeliveryListener>();
  private readonly budgeted: BudgetedChannel[];
  private readonly status: ChannelStatus;
  private readonly lookups = new Set<Promise<void>>();
  private readonly reminders: Reminders | undefined;
  private readonly reminderTimer: NodeJS.Timeout | undefined;
  private reminding = false;

  constructor(
    private readonly options: AlertOptions,
    channels: AlertChannel[],
  ) {
    this.status = new ChannelStatus(options.store);
    const delivered: DeliveryListener = (alert, result) => {
      for (const listener of this.listeners) listener(alert, result);
    };
    this.budgeted = channels.map((channel) => new BudgetedChannel(channel, { ...options, status: this.status, delivered }));
    this.channels = channels.map((channel) => channel.name);
    const { remindAfterSeconds } = options.config.alerts;
    if (remindAfterSeconds !== undefined) {
      this.reminders = new Reminders(options.store, options.clock, remindAfterSeconds);
      this.reminderTimer = setInterval(() => {
        this.checkReminders().catch((error: unknown) => options.logger.warn({ alert: 'reminder', error: errorCode(error) }, 'reminders not checked'));
      }, REMINDER_ROUND_MS).unref();
    }
  }

  notify(event: AlertEvent): void {
    const conversationId = event.thread.startsWith(CONVERSATION_PREFIX) ? event.thread.slice(CONVERSATION_PREFIX.length) : undefined;
    const { excerpt } = event;
    if (!this.options.config.alerts.includeText || !excerpt || excerpt.name !== undefined || conversationId === undefined) {
      this.fanOut(event, excerpt);
      return;
    }
    // A follow-up's write does not read the visitor's name: looked up here, after the response, and only when it is shown.
    const lookup = this.options.store.db
      .selectFrom('conversations')
      .select('name')
      .where('id', '=', conversationId)
      .executeTakeFirst()
      .then(
        (row) => this.fanOut(event, { ...excerpt, name: row?.name ?? '' }),
        () => this.fanOut(event, excerpt),
      );
    this.lookups.add(lookup);
    void lookup.finally(() => this.lookups.delete(lookup));
  }

  private fanOut(event: AlertEvent, excerpt: AlertEvent['excerpt']): void {
    const message = this.messageFor(event.kind, ALERT_TEXTS[event.kind], event.thread, excerpt);
    for (const channel of this.budgeted) channel.notify(event, message);
  }

  /**
   * One round of REMIND_AFTER reminders (the timer's, or a test's): each is claimed once in the
   * store, then sent to every channel outside the budgets (a reminder is rare by construction).
   */
  async checkReminders(): Promise<void> {
    if (!this.reminders || this.reminding) return;
    this.reminding = true;
    try {
      for (const news of await this.reminders.due()) {
        const message = this.messageFor('reminder', news.text, news.thread);
        for (const channel of this.budgeted) channel.deliver(message);
      }
    } finally {
      this.reminding = false;
    }
  }

  onDelivery(listener: DeliveryListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async sendTest(channel?: ChannelName): Promise<ChannelOutcome[]> {
    const chosen = this.budgeted.filter((one) => channel === undefined || one.channel.name === channel);
    const message: AlertMessage = { kind: 'test', text: ALERT_TEXTS.test };
    return Promise.all(chosen.map(async (one) => ({ channel: one.channel.name, ...(await one.sendTest(message)) })));
  }

  report(): Promise<ChannelReport[]> {
    return this.status.report(this.channels);
  }

  async idle(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    await Promise.allSettled([...this.lookups]);
    await Promise.all(this.budgeted.map((channel) => channel.idle()));
  }

  async close(): Promise<void> {
    clearInterval(this.reminderTimer);
    await Promise.all(this.budgeted.map((channel) => channel.close()));
  }

  private messageFor(kind: AlertMessage['kind'], text: string, thread?: string, excerpt?: AlertEvent['excerpt']): AlertMessage {
    const link = thread === undefined ? undefined : this.options.linkFor?.(thread);
    const closeForm = link === undefined ? undefined : this.options.closeFormFor?.(link);
    const shown = this.options.config.alerts.includeText && excerpt ? { name: excerpt.name ?? '', text: excerptOf(excerpt.text) } : undefined;
    return { kind, text, ...(thread && { thread }), ...(link && { link }), ...(closeForm && { closeForm }), ...(shown && { excerpt: shown }) };
  }
}
