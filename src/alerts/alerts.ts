export const ALERT_KINDS = ['new', 'reply', 'owner_bridge', 'test'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export type AlertFailure = 'not_configured' | 'rate_limited' | 'delivery_failed';

/** What one delivery attempt came to; `detail` is a sentence for the operator, never a secret. */
export type AlertOutcome =
  | { sent: true }
  | { sent: false; reason: AlertFailure; detail: string; retryAfterSeconds?: number };

/** Operator alerts (CONTRACT §4.3, §4.4). */
export interface Alerts {
  readonly configured: boolean;
  /** Fire and forget: never throws and never delays its caller. */
  notify(kind: AlertKind): void;
  /** Sends now and reports the outcome (the operator's test alert awaits it). */
  deliver(kind: AlertKind): Promise<AlertOutcome>;
}

/** The channel when no Telegram bot is configured: alerts are off. */
export const alertsOff: Alerts = {
  configured: false,
  notify: () => undefined,
  deliver: async () => ({
    sent: false,
    reason: 'not_configured',
    detail: 'Alerts are not configured: set TELEGRAM_BOT_TOKEN and TELEGRAM_CHAT_ID.',
  }),
};
