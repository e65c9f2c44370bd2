import type { BlockList, BlockRecord } from '../api-types.ts';
import { byId, el, errorText, formatTime } from '../dom.ts';
import { attempt, call, setStatus } from './api.ts';
import { state } from './state.ts';
import { reloadThread } from './thread.ts';

const EXPIRY_WORDS: Record<string, string> = { '1d': '1 day', '7d': '7 days', '30d': '30 days', '': 'until lifted' };

function blockRow(block: BlockRecord): HTMLLIElement {
  const target = block.conversation_id ? `conversation ${block.conversation_id}` : `agent ${block.agent_id ?? ''}`;
  const scope = block.widened ? `${block.scope} (its /24)` : block.scope;
  const until = block.expires_at ? `until ${formatTime(block.expires_at)}` : 'until lifted';
  const reason = block.reason ? ` · ${block.reason}` : '';
  const lift = el('button', { className: 'quiet small', text: 'Lift', attrs: { type: 'button' } });
  lift.addEventListener('click', () => attempt('blocks-status', () => liftBlock(block.id)));
  return el('li', { attrs: { 'data-block': block.id } }, el('strong', { text: scope }), el('span', { className: 'meta', text: ` · ${target} · ${until}${reason} ` }), lift);
}

export async function loadBlocks(): Promise<void> {
  const result = await call<BlockList>('GET', '/api/admin/blocks');
  if (result.status !== 200 || !result.body) return setStatus('blocks-status', errorText(result), true);
  const { blocks } = result.body;
  setStatus('blocks-status', blocks.length === 0 ? 'No block holds now.' : '');
  byId('blocks').replaceChildren(...blocks.map(blockRow));
}

async function liftBlock(id: string): Promise<void> {
  const result = await call('DELETE', `/api/admin/blocks/${id}`);
  if (result.status >= 400 && result.status !== 404) return setStatus('blocks-status', errorText(result), true);
  await loadBlocks();
  setStatus('blocks-status', 'Block lifted.');
}

export async function blockCurrent(): Promise<void> {
  if (!state.current) return;
  const scope = byId<HTMLSelectElement>('block-scope').value;
  const expiry = byId<HTMLSelectElement>('block-expiry').value;
  const reason = byId<HTMLInputElement>('block-reason');
  const result = await call('POST', '/api/admin/blocks', { conversation_id: state.current, scope, expires_in: expiry || null, reason: reason.value });
  if (result.status !== 201) return setStatus('thread-status', errorText(result), true);
  reason.value = '';
  setStatus('thread-status', `Blocked (${scope === 'source' ? 'its source' : 'this conversation'}, ${EXPIRY_WORDS[expiry]}).`);
  await reloadThread();
  if (byId<HTMLDetailsElement>('blocks-panel').open) await loadBlocks();
}

export async function revokeToken(): Promise<void> {
  const id = state.current;
  if (!id || !window.confirm('Revoke this conversation\'s token? Its visitor can no longer read or answer it; the conversation stays.')) return;
  const result = await call<{ duplicate: boolean }>('POST', `/api/admin/conversations/${id}/token/revoke`);
  if (result.status !== 200) return setStatus('thread-status', errorText(result), true);
  setStatus('thread-status', result.body?.duplicate ? 'The token was already revoked.' : 'Token revoked.');
}
