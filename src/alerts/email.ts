import { createHash, randomUUID } from 'node:crypto';
import nodemailer, { type Transporter } from 'nodemailer';
import type { AlertChannelsConfig } from '../config-alerts.ts';
import type { AlertOutcome } from './alerts.ts';
import { deliveryFailure, excerptLine, plainText, type AlertChannel, type AlertMessage } from './channel.ts';

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** One paragraph each, no image, no remote resource, no tracking parameter. */
function html(message: AlertMessage): string {
  const parts = [`<p>${escapeHtml(message.text)}</p>`];
  if (message.excerpt) parts.push(`<blockquote>${escapeHtml(excerptLine(message.excerpt)).replace(/\n/g, '<br>')}</blockquote>`);
  if (message.link) parts.push(`<p><a href="${escapeHtml(message.link)}">Open in Parley</a></p>`);
  return `<!doctype html><html><body>${parts.join('')}</body></html>`;
}

/** What went wrong, from nodemailer's code and the SMTP reply code only: its message may quote addresses or the server's words. */
function failure(error: unknown): AlertOutcome {
  const { code, responseCode } = error as { code?: unknown; responseCode?: unknown };
  if (code === 'EAUTH') return deliveryFailure('The mail server refused the SMTP_URL credentials.');
  if (typeof responseCode === 'number') return deliveryFailure(`The mail server refused the alert (SMTP ${responseCode}).`);
  if (code === 'ETIMEDOUT') return deliveryFailure('The mail server did not answer in time.');
  return deliveryFailure(`The mail server could not be reached (${typeof code === 'string' ? code : 'unknown'}).`);
}

/**
 * Alerts by e-mail through SMTP, plain text and HTML. Every alert about one conversation or bridge
 * refers to one thread root (`In-Reply-To`, `References`), the new-conversation alert being that
 * root itself, so mail clients show them as one thread. The root's id is a hash, never the
 * conversation's id (CONTRACT §4.4).
 */
export class EmailChannel implements AlertChannel {
  readonly name = 'email';
  private readonly transport: Transporter;
  private readonly domain: string;

  constructor(
    private readonly target: NonNullable<AlertChannelsConfig['email']>,
    timeoutMs: number,
  ) {
    this.transport = nodemailer.createTransport({
      url: target.smtpUrl,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
    });
    this.domain = target.from.split('@')[1]!;
  }

  async send(message: AlertMessage): Promise<AlertOutcome> {
    const root = message.thread === undefined ? undefined : this.threadRoot(message.thread);
    const startsThread = root !== undefined && message.kind === 'new';
    try {
      await this.transport.sendMail({
        from: this.target.from,
        to: this.target.to,
        subject: root === undefined ? message.text : 'Parley: a conversation in your inbox',
        text: plainText(message),
        html: html(message),
        messageId: startsThread ? root : `<${randomUUID()}@${this.domain}>`,
        ...(root !== undefined && !startsThread && { inReplyTo: root, references: [root] }),
        headers: { 'Auto-Submitted': 'auto-generated', 'X-Auto-Response-Suppress': 'All' },
      });
      return { sent: true };
    } catch (error) {
      return failure(error);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  private threadRoot(thread: string): string {
    const hash = createHash('sha256').update(`parley-alert-thread:${this.target.to}:${thread}`).digest('hex').slice(0, 32);
    return `<${hash}@${this.domain}>`;
  }
}
