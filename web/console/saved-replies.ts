import type { SavedReply, SavedReplyList } from '../api-types.ts';
import { byId, el, errorText } from '../dom.ts';
import { attempt, call, setStatus } from './api.ts';

let replies: SavedReply[] = [];
/** The saved reply the form edits; null while it makes a new one. */
let editing: string | null = null;

const dialog = () => byId<HTMLDialogElement>('saved');
const replyField = () => byId<HTMLTextAreaElement>('admin-reply-text');

/** True where "/" opens the picker: at the start of an empty line of the reply, so that a "/" inside text stays a slash. */
export function slashOpensPicker(field: HTMLTextAreaElement): boolean {
  const before = field.value.slice(0, field.selectionStart);
  return before === '' || before.endsWith('\n');
}

export function openPicker(): void {
  byId<HTMLInputElement>('saved-filter').value = '';
  setStatus('saved-status', '');
  resetForm();
  dialog().showModal();
  byId('saved-filter').focus();
  attempt('saved-status', load);
}

async function load(): Promise<void> {
  const result = await call<SavedReplyList>('GET', '/api/admin/saved-replies');
  if (result.status !== 200 || !result.body) return setStatus('saved-status', errorText(result), true);
  replies = result.body.saved_replies;
  render();
}

function shown(): SavedReply[] {
  const words = byId<HTMLInputElement>('saved-filter').value.trim().toLowerCase().split(/\s+/).filter(Boolean);
  return replies.filter((reply) => words.every((word) => `${reply.title} ${reply.body}`.toLowerCase().includes(word)));
}

function render(): void {
  const list = shown();
  byId('saved-list').replaceChildren(
    ...list.map((reply) => {
      const insertButton = el('button', { className: 'link insert', attrs: { type: 'button' } }, el('strong', { text: reply.title }), el('span', { className: 'meta', text: ` ${reply.body.slice(0, 80)}` }));
      insertButton.addEventListener('click', () => insert(reply));
      const edit = el('button', { className: 'small quiet', text: 'Edit', attrs: { type: 'button', 'aria-label': `Edit ${reply.title}` } });
      edit.addEventListener('click', () => startEdit(reply));
      const remove = el('button', { className: 'small quiet danger', text: 'Delete', attrs: { type: 'button', 'aria-label': `Delete ${reply.title}` } });
      remove.addEventListener('click', () => attempt('saved-status', () => removeReply(reply)));
      return el('li', {}, insertButton, el('span', { className: 'saved-tools' }, edit, remove));
    }),
  );
  if (list.length === 0) byId('saved-list').append(el('li', { className: 'meta', text: replies.length === 0 ? 'No saved replies yet: add one below.' : 'None matches.' }));
}

/** Puts the text where the cursor was in the reply, replacing a selection, and goes back there. */
function insert(reply: SavedReply): void {
  const field = replyField();
  field.setRangeText(reply.body, field.selectionStart, field.selectionEnd, 'end');
  dialog().close();
  field.focus();
}

function startEdit(reply: SavedReply): void {
  editing = reply.id;
  byId('saved-form-heading').textContent = `Edit “${reply.title}”`;
  byId<HTMLInputElement>('saved-title').value = reply.title;
  byId<HTMLTextAreaElement>('saved-body').value = reply.body;
  byId('saved-new').hidden = false;
  byId('saved-title').focus();
}

function resetForm(): void {
  editing = null;
  byId<HTMLFormElement>('saved-form').reset();
  byId('saved-form-heading').textContent = 'New saved reply';
  byId('saved-new').hidden = true;
}

async function save(): Promise<void> {
  const body = { title: byId<HTMLInputElement>('saved-title').value, body: byId<HTMLTextAreaElement>('saved-body').value };
  const result = editing ? await call('PATCH', `/api/admin/saved-replies/${editing}`, body) : await call('POST', '/api/admin/saved-replies', body);
  if (result.status >= 400) return setStatus('saved-status', errorText(result), true);
  setStatus('saved-status', editing ? 'Saved reply changed.' : 'Saved reply added.');
  resetForm();
  await load();
}

async function removeReply(reply: SavedReply): Promise<void> {
  if (!window.confirm(`Delete the saved reply “${reply.title}”?`)) return;
  const result = await call('DELETE', `/api/admin/saved-replies/${reply.id}`);
  if (result.status >= 400 && result.status !== 404) return setStatus('saved-status', errorText(result), true);
  if (editing === reply.id) resetForm();
  setStatus('saved-status', 'Saved reply deleted.');
  await load();
}

export function wireSavedReplies(): void {
  byId('saved-open').addEventListener('click', openPicker);
  byId('saved-close').addEventListener('click', () => dialog().close());
  byId('saved-new').addEventListener('click', resetForm);
  byId('saved-filter').addEventListener('input', render);
  byId('saved-filter').addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return;
    event.preventDefault();
    const first = shown()[0];
    if (first) insert(first);
  });
  byId<HTMLFormElement>('saved-form').addEventListener('submit', (event) => {
    event.preventDefault();
    attempt('saved-status', save);
  });
  // Back to the reply when the picker closes without inserting (Esc, Close).
  dialog().addEventListener('close', () => {
    if (!byId('thread').hidden) replyField().focus();
  });
}
