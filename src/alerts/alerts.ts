export const ALERT_KINDS = ['new', 'reply', 'owner_bridge', 'test'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

/** Operator alerts. `notify` never throws and never delays its caller (CONTRACT §4.4). */
export interface Alerts {
  readonly configured: boolean;
  notify(kind: AlertKind): void;
}

/** The channel when no Telegram bot is configured: alerts are off. */
export const alertsOff: Alerts = {
  configured: false,
  notify: () => undefined,
};
