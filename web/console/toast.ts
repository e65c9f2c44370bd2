import type { ConversationListItem } from '../api-types.ts';
import { byId, el } from '../dom.ts';
import { conversationUrl, followInPlace } from './navigation.ts';

const SOUND_KEY = 'parley.sound';
/** Toasts shown at once: an older one gives way to a newer. */
const MAX_TOASTS = 3;
const TOAST_MS = 12_000;

let audio: AudioContext | undefined;

/** The sound toggle, off unless this browser turned it on (a setting, not a secret: localStorage). */
export function wireSound(): void {
  const toggle = byId<HTMLInputElement>('sound-toggle');
  toggle.checked = localStorage.getItem(SOUND_KEY) === 'on';
  toggle.addEventListener('change', () => {
    if (toggle.checked) localStorage.setItem(SOUND_KEY, 'on');
    else localStorage.removeItem(SOUND_KEY);
    // Made during the click, the browser lets it play later.
    if (toggle.checked) audio ??= new AudioContext();
  });
}

/** A short, quiet tone, made on the spot: no audio file for the page's policy to allow. */
function chime(): void {
  if (localStorage.getItem(SOUND_KEY) !== 'on') return;
  audio ??= new AudioContext();
  const tone = audio.createOscillator();
  const volume = audio.createGain();
  tone.frequency.value = 880;
  volume.gain.value = 0.05;
  tone.connect(volume).connect(audio.destination);
  tone.start();
  tone.stop(audio.currentTime + 0.15);
}

function dismiss(toast: HTMLElement): void {
  toast.remove();
}

function toastFor(row: ConversationListItem): HTMLElement {
  const url = conversationUrl(row.id);
  const link = el('a', { text: `${row.message_count === 1 ? 'New conversation' : 'New message'} from ${row.name}`, attrs: { href: url } });
  const close = el('button', { className: 'quiet small', text: '×', attrs: { type: 'button', 'aria-label': `Dismiss the notice about ${row.name}` } });
  const toast = el('div', { className: 'toast', attrs: { 'data-id': row.id } }, link, close);
  link.addEventListener('click', (event) => {
    dismiss(toast);
    followInPlace(event, url);
  });
  close.addEventListener('click', () => dismiss(toast));
  window.setTimeout(() => dismiss(toast), TOAST_MS);
  return toast;
}

/** Notices of new visitor messages while the tab is in front; they never take the focus. */
export function toastNews(rows: ConversationListItem[]): void {
  if (rows.length === 0) return;
  const shelf = byId('toasts');
  for (const row of rows) {
    shelf.querySelector(`[data-id="${row.id}"]`)?.remove();
    shelf.append(toastFor(row));
  }
  while (shelf.childElementCount > MAX_TOASTS) shelf.firstElementChild?.remove();
  chime();
}
