import type { InboxOverview, NotificationSettings, ReviewLabels, TestAlertResult } from '../api-types.ts';
import { byId, el, errorText } from '../dom.ts';
import { call } from './api.ts';
import { TITLE } from './state.ts';

const TOTAL_NAMES: Record<string, string> = {
  total_conversations: 'Conversations',
  unread_threads: 'Unread',
  open: 'Open',
  closed: 'Closed',
  spam: 'Spam',
  new_last_24h: 'New in 24 h',
};

export function renderOverview(overview: InboxOverview | null): void {
  if (!overview) return;
  byId('totals').replaceChildren(
    ...Object.entries(overview.totals).map(([name, value]) =>
      el('div', { attrs: { 'data-total': name } }, el('dt', { text: TOTAL_NAMES[name] ?? name }), el('dd', { text: String(value) })),
    ),
  );
  const unread = overview.totals.unread_threads;
  document.title = unread > 0 ? `(${unread}) ${TITLE}` : TITLE;
}

export async function loadOverview(): Promise<void> {
  const result = await call<InboxOverview>('GET', '/api/admin/overview');
  if (result.status === 200) renderOverview(result.body);
}

export async function loadAlertsStatus(): Promise<void> {
  const alerts = await call<NotificationSettings>('GET', '/api/admin/notifications');
  byId('alerts-status').textContent = alerts.body?.configured ? 'Telegram alerts are configured.' : 'Telegram alerts are not configured.';
}

export async function loadLabels(): Promise<void> {
  const result = await call<ReviewLabels>('GET', '/api/admin/review-labels');
  const labels = result.body?.labels ?? [];
  byId('f-label').append(...labels.map((label) => el('option', { text: label })));
  byId('review-label').replaceChildren(...labels.map((label) => el('option', { text: label })));
}

export async function testAlert(): Promise<void> {
  const result = await call<TestAlertResult>('POST', '/api/admin/notifications/test');
  byId('alert-result').textContent = result.body?.sent ? 'Test alert sent.' : errorText(result);
}
