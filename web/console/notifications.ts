import type { NotificationSettings, TestAlertResult, WebhookStatus } from '../api-types.ts';
import { byId, el, errorText, formatTime } from '../dom.ts';
import { pushState, subscribeToPush, unsubscribeFromPush, type PushState } from '../push-opt-in.ts';
import { attempt, call, setStatus } from './api.ts';

type Channel = NotificationSettings['channels'][number];

const CHANNEL_TITLES: Record<Channel['name'], string> = {
  telegram: 'Telegram',
  email: 'E-mail',
  ntfy: 'ntfy',
  slack: 'Slack',
  discord: 'Discord',
  web_push: 'Web Push',
};

function lastDelivery(channel: Channel): string {
  if (!channel.configured) return 'not configured';
  if (!channel.last_result || !channel.last_at) return 'configured · nothing sent yet';
  const detail = channel.last_detail ? ` (${channel.last_detail})` : '';
  return `configured · last ${channel.last_result} ${formatTime(channel.last_at)}${detail}`;
}

/** Each channel's latest test outcome, kept across the list's re-renders. */
const testOutcomes = new Map<Channel['name'], { text: string; isError: boolean }>();

function channelRow(channel: Channel): HTMLLIElement {
  const title = CHANNEL_TITLES[channel.name];
  const row = el('li', { attrs: { 'data-channel': channel.name } }, el('strong', { text: title }), el('span', { className: 'meta', text: ` ${lastDelivery(channel)}` }));
  if (channel.configured) {
    const outcome = testOutcomes.get(channel.name);
    const result = el('span', { className: outcome?.isError ? 'status error' : 'status', text: outcome?.text ?? '', attrs: { role: 'status', id: `channel-result-${channel.name}` } });
    const button = el('button', { className: 'quiet small', text: 'Test', attrs: { type: 'button', 'aria-label': `Test ${title}` } });
    button.addEventListener('click', () => attempt(result.id, () => testChannel(channel.name, result.id)));
    row.append(' ', button, result);
  }
  return row;
}

export async function loadNotifications(): Promise<void> {
  const result = await call<NotificationSettings>('GET', '/api/admin/notifications');
  const channels = result.body?.channels ?? [];
  const configured = channels.filter((channel) => channel.configured).map((channel) => CHANNEL_TITLES[channel.name]);
  byId('alerts-status').textContent = configured.length > 0 ? `Alerts go to ${configured.join(', ')}.` : 'No alert channel is configured.';
  byId('channels').replaceChildren(...channels.map(channelRow));
  await loadWebhookLosses();
}

/** A warning when webhook events were given up: the receiver missed them, and only the operator can tell it. */
async function loadWebhookLosses(): Promise<void> {
  const status = (await call<WebhookStatus>('GET', '/api/admin/webhooks')).body;
  const warning = byId('webhook-losses');
  const lost = status ? status.dropped_events + status.given_up_events : 0;
  warning.hidden = !status?.last_lost_at || lost === 0;
  if (warning.hidden || !status?.last_lost_at) return;
  const reasons = [
    status.dropped_events > 0 ? `${status.dropped_events} past WEBHOOK_OUTBOX_MAX` : '',
    status.given_up_events > 0 ? `${status.given_up_events} after WEBHOOK_GIVE_UP_SECONDS of failures` : '',
  ].filter(Boolean);
  warning.textContent = `Webhooks: ${lost} ${lost === 1 ? 'event was' : 'events were'} given up unsent (${reasons.join(', ')}), the last ${formatTime(status.last_lost_at)}. The receiver missed them: check it, and see the log.`;
}

async function testChannel(name: Channel['name'], resultId: string): Promise<void> {
  setStatus(resultId, 'Sending…');
  const result = await call<TestAlertResult>('POST', `/api/admin/notifications/test?channel=${name}`);
  const sent = result.body?.sent === true;
  testOutcomes.set(name, { text: sent ? 'Sent.' : errorText(result), isError: !sent });
  await loadNotifications();
}

export async function testAlert(): Promise<void> {
  const result = await call<TestAlertResult>('POST', '/api/admin/notifications/test');
  setStatus('alert-result', result.body?.sent ? 'Test alert sent.' : errorText(result), !result.body?.sent);
  await loadNotifications();
}

const PUSH_SENTENCES: Record<PushState, string> = {
  unsupported: 'This browser cannot receive push alerts.',
  off: 'Web Push is not set up on the server.',
  denied: 'Notifications are blocked for this site in this browser.',
  not_subscribed: 'This browser gets no push alerts.',
  subscribed: 'This browser gets push alerts.',
};

function showPush(current: PushState): void {
  byId('push-state').textContent = PUSH_SENTENCES[current];
  const button = byId<HTMLButtonElement>('push-toggle');
  button.hidden = current !== 'not_subscribed' && current !== 'subscribed';
  button.textContent = current === 'subscribed' ? 'Stop push alerts here' : 'Get push alerts here';
  button.dataset.subscribed = String(current === 'subscribed');
}

export async function loadPushState(): Promise<void> {
  showPush(await pushState());
}

/** From a click: the browser asks for permission only on a user gesture. */
export async function togglePush(): Promise<void> {
  const button = byId<HTMLButtonElement>('push-toggle');
  button.disabled = true;
  try {
    showPush(button.dataset.subscribed === 'true' ? await unsubscribeFromPush(call) : await subscribeToPush(call));
  } finally {
    button.disabled = false;
  }
  await loadNotifications();
}
