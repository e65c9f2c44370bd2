export const ALERT_KINDS = ['new', 'reply', 'owner_bridge', 'test'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];
/** The kinds that visitors and agents cause; `test` is the operator's own. */
export type ActivityKind = Exclude<AlertKind, 'test'>;
export const ACTIVITY_KINDS: readonly ActivityKind[] = ['new', 'reply', 'owner_bridge'];

export type AlertFailure = 'not_configured' | 'rate_limited' | 'delivery_failed';

/** What one delivery attempt came to; `detail` is a sentence for the operator, never a secret. */
export type AlertOutcome =
  | { sent: true }
  | { sent: false; reason: AlertFailure; detail: string; retryAfterSeconds?: number };

/** What became of one alert or digest: sent, not sent, or held back by a budget (folded into a digest, or a test alert refused). */
export type DeliveryResult = 'sent' | 'failed' | 'over_budget';
export type DeliveryListener = (alert: AlertKind | 'digest', result: DeliveryResult) => void;

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
}

export const conversationThread = (conversationId: string) => `conversation:${conversationId}`;
export const bridgeThread = (topicId: string, agentId: string) => `bridge:${topicId}:${agentId}`;

/** Operator alerts (CONTRACT §4.3, §4.4). */
export interface Alerts {
  readonly configured: boolean;
  /** Fire and forget: never throws and never delays its caller. */
  notify(event: AlertEvent): void;
  /** Sends the operator's test alert now and reports the outcome (the test route awaits it). */
  sendTest(): Promise<AlertOutcome>;
  /** Sends a digest that is due, then resolves once every delivery under way has finished. */
  idle(): Promise<void>;
  /** Stops the digest timer and waits for deliveries under way (at shutdown). */
  close(): Promise<void>;
  /** Calls `listener` with each delivery's result (the metrics count them); returns the function that stops it. */
  onDelivery?(listener: DeliveryListener): () => void;
}

/** The channel when no Telegram bot is configured: alerts are off. */
export const alertsOff: Alerts = {
  configured: false,
  notify: () => undefined,
  sendTest: async () => ({
    sent: false,
    reason: 'not_configured',
    detail: 'Alerts are not configured: set TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID.',
  }),
  idle: async () => undefined,
  close: async () => undefined,
};
