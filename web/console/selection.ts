import { byId, errorText } from '../dom.ts';
import { attempt, call, setStatus } from './api.ts';
import { loadConversations, renderList } from './inbox-list.ts';
import { loadOverview } from './overview.ts';
import { state } from './state.ts';

/** The bulk route's limit per request: a larger selection goes in several. */
const BULK_MAX_IDS = 100;
const DONE: Record<string, string> = { close: 'closed', mark_read: 'marked read', spam: 'marked spam', delete: 'deleted' };

interface BulkResult {
  done: number;
  not_found: number;
}

let lastToggled: string | null = null;

/** Ticks or unticks one row; with Shift, every row between it and the one ticked last. */
export function toggle(id: string, range: boolean): void {
  const select = !state.selected.has(id);
  const ids = state.rows.map((row) => row.id);
  const from = range && lastToggled ? ids.indexOf(lastToggled) : -1;
  const to = ids.indexOf(id);
  const span = from >= 0 && to >= 0 ? ids.slice(Math.min(from, to), Math.max(from, to) + 1) : [id];
  for (const each of span) {
    if (select) state.selected.add(each);
    else state.selected.delete(each);
  }
  lastToggled = id;
  renderList();
}

/** The bar of bulk actions, shown while something is selected. */
export function renderSelection(): void {
  const count = state.selected.size;
  byId('bulk-bar').hidden = count === 0;
  byId('bulk-count').textContent = `${count} selected`;
}

async function runBulk(action: string, ids: string[]): Promise<void> {
  let done = 0;
  for (let start = 0; start < ids.length; start += BULK_MAX_IDS) {
    const result = await call<BulkResult>('POST', '/api/admin/conversations/bulk', { ids: ids.slice(start, start + BULK_MAX_IDS), action });
    if (result.status !== 200 || !result.body) return setStatus('list-status', errorText(result), true);
    done += result.body.done;
  }
  // The bar goes with the selection at once, with the status that says what was done, not after the reload.
  state.selected.clear();
  renderSelection();
  setStatus('list-status', `${done} ${done === 1 ? 'conversation' : 'conversations'} ${DONE[action] ?? action}.`);
  await Promise.all([loadConversations(true), loadOverview()]);
}

export function wireSelection(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('[data-bulk]')) {
    button.addEventListener('click', () => {
      const action = button.dataset.bulk ?? '';
      const ids = [...state.selected];
      if (action === 'delete' && !window.confirm(`Delete ${ids.length} ${ids.length === 1 ? 'conversation' : 'conversations'} and every message in them for good?`)) return;
      attempt('list-status', () => runBulk(action, ids));
    });
  }
  byId('bulk-clear').addEventListener('click', () => {
    state.selected.clear();
    renderList();
  });
  byId('mark-all-read').addEventListener('click', () => {
    const unread = state.rows.filter((row) => row.unread_count > 0).map((row) => row.id);
    if (unread.length === 0) return setStatus('list-status', 'Nothing shown is unread.');
    attempt('list-status', () => runBulk('mark_read', unread));
  });
}
