import type { PostOutcome } from '../http/post-json.ts';
import type { AlertExcerpt, AlertKind, AlertOutcome, ChannelName } from './alerts.ts';

export type MessageKind = AlertKind | 'digest' | 'reminder';

/** What one alert says; each channel renders it in its own format and markup. */
export interface AlertMessage {
  kind: MessageKind;
  /** The fixed, generic sentence (texts.ts, CONTRACT §4.4). */
  text: string;
  /** The conversation or bridge it is about, for threading (e-mail); never shown. */
  thread?: string;
  /** The link that opens the thing it is about (a capability: never logged). */
  link?: string;
  /** The form body that closes the conversation when posted to `link` (a conversation's signed link only). */
  closeForm?: string;
  /** Only with ALERT_INCLUDE_TEXT=true. */
  excerpt?: AlertExcerpt;
}

/** One place alerts go to. `send` never throws and its outcome's detail names no URL or secret. */
export interface AlertChannel {
  readonly name: ChannelName;
  send(message: AlertMessage): Promise<AlertOutcome>;
  /** False while the channel has no one to send to (Web Push before a browser opts in): its alerts are skipped, budgets untouched. */
  hasRecipients?(): Promise<boolean>;
  close?(): Promise<void>;
}

export function deliveryFailure(detail: string): AlertOutcome {
  return { sent: false, reason: 'delivery_failed', detail };
}

/** The outcome of one POST to `service`, in words for the operator (no URL: it may hold a token). */
export function outcomeOfPost(service: string, outcome: PostOutcome, timeoutMs: number): AlertOutcome {
  if (outcome.kind === 'timed_out') return deliveryFailure(`${service} did not answer within ${timeoutMs / 1000} seconds.`);
  if (outcome.kind === 'unreachable') return deliveryFailure(`${service} could not be reached (${outcome.code}).`);
  const { status } = outcome;
  if (status >= 200 && status < 300) return { sent: true };
  if (status >= 300 && status < 400) return deliveryFailure(`${service} answered with a redirect (HTTP ${status}), which is not followed.`);
  return deliveryFailure(`${service} refused the alert (HTTP ${status}).`);
}

/** The sentence, then the visitor's words when included, then the link, one per paragraph: plain text for any channel. */
export function plainText(message: AlertMessage): string {
  const parts = [message.text];
  if (message.excerpt) parts.push(excerptLine(message.excerpt));
  if (message.link) parts.push(`Open: ${message.link}`);
  return parts.join('\n\n');
}

export function excerptLine({ name, text }: AlertExcerpt): string {
  return name ? `${name}: ${text}` : text;
}
