import type { InboxOverview, ReviewLabels } from '../api-types.ts';
import { byId, el } from '../dom.ts';
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

/** A review label as the rows show it: "transport_test" reads "transport test". */
export function labelWords(label: string): string {
  return label.replaceAll('_', ' ');
}

export function renderOverview(overview: InboxOverview | null): void {
  if (!overview) return;
  byId('totals').replaceChildren(
    // Only the names above: the API also answers spam_threads, the same count as spam under the reference service's name.
    ...Object.entries(TOTAL_NAMES).map(([name, words]) =>
      el('div', { attrs: { 'data-total': name } }, el('dt', { text: words }), el('dd', { text: String(overview.totals[name as keyof InboxOverview['totals']]) })),
    ),
  );
  const unread = overview.totals.unread_threads;
  document.title = unread > 0 ? `(${unread}) ${TITLE}` : TITLE;
}

export async function loadOverview(): Promise<void> {
  const result = await call<InboxOverview>('GET', '/api/admin/overview');
  if (result.status === 200) renderOverview(result.body);
}

export async function loadLabels(): Promise<void> {
  const result = await call<ReviewLabels>('GET', '/api/admin/review-labels');
  const labels = result.body?.labels ?? [];
  const option = (label: string) => el('option', { text: labelWords(label), attrs: { value: label } });
  byId('f-label').append(...labels.map(option));
  byId('review-label').replaceChildren(...labels.map(option));
}
