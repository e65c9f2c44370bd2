import type { AlertChannelsConfig } from '../config-alerts.ts';
import { postJson } from '../http/post-json.ts';
import type { AlertOutcome } from './alerts.ts';
import { excerptLine, outcomeOfPost, type AlertChannel, type AlertMessage, type MessageKind } from './channel.ts';

/** ntfy priorities (1 min to 5 max): a new conversation or a reminder is worth a sound, the rest is the default. */
const NTFY_PRIORITY: Record<MessageKind, number> = { new: 4, reminder: 4, reply: 3, owner_bridge: 3, digest: 3, test: 3 };

const FORM_HEADERS = { 'Content-Type': 'application/x-www-form-urlencoded' };

/**
 * Open (a view action: the phone opens the link page), and for a conversation Close: an http action
 * the ntfy app sends itself, the link page's own form post with the link's form token.
 */
function ntfyActions(link: string, closeForm: string | undefined): object[] {
  const open = { action: 'view', label: 'Open', url: link, clear: true };
  if (closeForm === undefined) return [open];
  return [open, { action: 'http', label: 'Close', url: link, method: 'POST', headers: FORM_HEADERS, body: closeForm, clear: true }];
}

/**
 * ntfy, published as JSON to the server's root with the topic named in the body (the topic URL's
 * last segment), so that the text needs no header encoding. The body is plain text (no markdown).
 */
export class NtfyChannel implements AlertChannel {
  readonly name = 'ntfy';
  private readonly root: string;
  private readonly topic: string;

  constructor(
    private readonly target: NonNullable<AlertChannelsConfig['ntfy']>,
    private readonly timeoutMs: number,
  ) {
    const url = new URL(target.url);
    const segments = url.pathname.replace(/\/+$/, '').split('/');
    this.topic = decodeURIComponent(segments.pop() ?? '');
    url.pathname = `${segments.join('/')}/`;
    url.search = '';
    this.root = url.href;
  }

  async send(message: AlertMessage): Promise<AlertOutcome> {
    const body = {
      topic: this.topic,
      title: 'Parley',
      message: message.excerpt ? `${message.text}\n\n${excerptLine(message.excerpt)}` : message.text,
      priority: NTFY_PRIORITY[message.kind],
      tags: ['speech_balloon'],
      ...(message.link && { click: message.link, actions: ntfyActions(message.link, message.closeForm) }),
    };
    const headers: Record<string, string> = this.target.token ? { authorization: `Bearer ${this.target.token}` } : {};
    return outcomeOfPost('ntfy', await postJson(this.root, JSON.stringify(body), headers, this.timeoutMs), this.timeoutMs);
  }
}

/** Slack's mrkdwn needs only &, < and > escaped (its control characters). */
export function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Discord markdown: every formatting character backslashed, so a visitor's words show as written. */
export function discordEscape(text: string): string {
  return text.replace(/[\\*_~`|>#[\]()<:@-]/g, '\\$&');
}

function slackText(message: AlertMessage): string {
  const parts = [slackEscape(message.text)];
  if (message.excerpt) parts.push(`> ${slackEscape(excerptLine(message.excerpt)).replace(/\n/g, '\n> ')}`);
  if (message.link) parts.push(`<${slackEscape(message.link)}|Open in Parley>`);
  return parts.join('\n');
}

function discordContent(message: AlertMessage): string {
  const parts = [message.text];
  if (message.excerpt) parts.push(discordEscape(excerptLine(message.excerpt)));
  if (message.link) parts.push(`[Open in Parley](<${message.link}>)`);
  return parts.join('\n');
}

/** An incoming webhook of a chat service: its URL is the credential, so it is never shown. */
class ChatWebhookChannel implements AlertChannel {
  constructor(
    readonly name: 'slack' | 'discord',
    private readonly service: string,
    private readonly url: string,
    private readonly body: (message: AlertMessage) => object,
    private readonly timeoutMs: number,
  ) {}

  async send(message: AlertMessage): Promise<AlertOutcome> {
    return outcomeOfPost(this.service, await postJson(this.url, JSON.stringify(this.body(message)), {}, this.timeoutMs), this.timeoutMs);
  }
}

export function chatWebhookChannels(config: AlertChannelsConfig, timeoutMs: number): AlertChannel[] {
  const channels: AlertChannel[] = [];
  if (config.slackWebhookUrl) {
    const body = (message: AlertMessage) => ({ text: slackText(message), unfurl_links: false });
    channels.push(new ChatWebhookChannel('slack', 'Slack', config.slackWebhookUrl, body, timeoutMs));
  }
  if (config.discordWebhookUrl) {
    // No mention in an alert ever pings anyone, whatever a visitor wrote.
    const body = (message: AlertMessage) => ({ content: discordContent(message), allowed_mentions: { parse: [] } });
    channels.push(new ChatWebhookChannel('discord', 'Discord', config.discordWebhookUrl, body, timeoutMs));
  }
  return channels;
}
