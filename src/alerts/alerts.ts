export const ALERT_KINDS = ['new', 'reply', 'owner_bridge', 'test'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
/** The kinds that visitors and agents cause; `test` is the operator's own. */
export type ActivityKind = Exclude<AlertKind, 'test'>;
export const ACTIVITY_KINDS: readonly ActivityKind[] = ['new', 'reply', 'owner_bridge'];

/** Every channel an alert can go to, in the order the operator's panel lists them. */
export const CHANNEL_NAMES = ['telegram', 'email', 'ntfy', 'slack', 'discord', 'web_push'] as const;
export type ChannelName = (typeof CHANNEL_NAMES)[number];

export type AlertFailure = 'not_configured' | 'rate_limited' | 'delivery_failed';

/** What one delivery attempt came to; `detail` is a sentence for the operator, never a secret. */
export type AlertOutcome =
  | { sent: true }
  | { sent: false; reason: AlertFailure; detail: string; retryAfterSeconds?: number };

/** What became of one alert or digest: sent, not sent, or held back by a budget (folded into a digest, or a test alert refused). */
export type DeliveryResult = 'sent' | 'failed' | 'over_budget';
/** The alert label of a delivery: an alert's kind, or one of the messages the channels send on their own. */
export const DELIVERY_KINDS = [...ALERT_KINDS, 'digest', 'reminder'] as const;
export type DeliveryListener = (alert: (typeof DELIVERY_KINDS)[number], result: DeliveryResult) => void;

/**
 * What a caller knows about the activity behind an alert. It decides which budgets the alert is
 * counted against; none of it ever reaches the alert's text (CONTRACT §4.4).
 */
export interface AlertEvent {
  kind: ActivityKind;
  /** The conversation or owner bridge (conversationThread, bridgeThread): one alert each per window. */
  thread: string;
  /** The keyed hash of the client address (requestSource): a source gets at most its share. */
  source: string;
  /** What the visitor wrote, shown only when the operator sets ALERT_INCLUDE_TEXT=true. */
  excerpt?: AlertExcerpt;
}

export interface AlertExcerpt {
  /** The visitor's name; looked up from the conversation when the write did not have it. */
  name?: string;
  text: string;
}

/** One channel's outcome of the operator's test alert. */
export type ChannelOutcome = AlertOutcome & { channel: ChannelName };

/** A configured channel and its last delivery, as every instance sees it (stored). */
export interface ChannelReport {
  channel: ChannelName;
  lastResult: 'sent' | 'failed' | undefined;
  lastDetail: string | undefined;
  lastAt: number | undefined;
}

export const conversationThread = (conversationId: string) => `conversation:${conversationId}`;
export const bridgeThread = (topicId: string, agentId: string) => `bridge:${topicId}:${agentId}`;

/** Operator alerts (CONTRACT §4.3, §4.4). */
export interface Alerts {
  readonly configured: boolean;
  /** The channels configured, in CHANNEL_NAMES order. */
  readonly channels: readonly ChannelName[];
  /** Fire and forget: never throws and never delays its caller. */
  notify(event: AlertEvent): void;
  /** Sends the operator's test alert now to one channel or all, and reports each outcome (the test route awaits it). */
  sendTest(channel?: ChannelName): Promise<ChannelOutcome[]>;
  /** Each configured channel with its last delivery. */
  report(): Promise<ChannelReport[]>;
  /** Sends a digest that is due, then resolves once every delivery under way has finished. */
  idle(): Promise<void>;
  /** Stops the digest timer and waits for deliveries under way (at shutdown). */
  close(): Promise<void>;
  /** Calls `listener` with each delivery's result (the metrics count them); returns the function that stops it. */
  onDelivery?(listener: DeliveryListener): () => void;
}

export const NOT_CONFIGURED_DETAIL =
  'Alerts are not configured: set TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID, or another channel (docs/operator.md).';

/** When no channel is configured: alerts are off. */
export const alertsOff: Alerts = {
  configured: false,
  channels: [],
  notify: () => undefined,
  sendTest: async () => [],
  report: async () => [],
  idle: async () => undefined,
  close: async () => undefined,
};
