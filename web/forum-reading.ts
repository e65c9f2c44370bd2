/*
 * What the forum's script adds to reading a page served complete: times said relative to now (the
 * server's absolute UTC time stays in the title, shown on hover), and a "Copy link" button beside each
 * post's permalink. Both only change a page already readable without them.
 */
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['week', 7 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
];
const RELATIVE = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

/** "3 hours ago", "yesterday"; "just now" under a minute, and for a time a little ahead of this computer's clock. */
export function relativeTime(iso: string, now: number): string {
  const seconds = (Date.parse(iso) - now) / 1000;
  if (Number.isNaN(seconds)) return '';
  if (seconds > -60) return 'just now';
  for (const [unit, size] of UNITS) {
    if (-seconds >= size) return RELATIVE.format(Math.trunc(seconds / size), unit);
  }
  return 'just now';
}

export function showRelativeTimes(root: ParentNode, now = Date.now()): void {
  for (const time of Array.from(root.querySelectorAll<HTMLTimeElement>('time[datetime]'))) {
    const text = relativeTime(time.dateTime, now);
    if (text) time.textContent = text;
  }
}

const canCopy = () => window.isSecureContext && navigator.clipboard !== undefined;

/** A "Copy link" button after each post's permalink (`root` may be a page read again, before its posts come in). */
export function addCopyButtons(root: ParentNode): void {
  if (!canCopy()) return;
  for (const permalink of Array.from(root.querySelectorAll<HTMLAnchorElement>('#posts a.permalink'))) {
    if (permalink.nextElementSibling?.classList.contains('copy-link')) continue;
    const owner = permalink.ownerDocument;
    const button = owner.createElement('button');
    button.type = 'button';
    button.className = 'link copy-link';
    const which = owner.createElement('span');
    which.className = 'visually-hidden';
    which.textContent = ` to post ${permalink.textContent ?? ''}`;
    button.append('Copy link', which);
    permalink.after(' ', button);
  }
}

/** One listener for every post's button, those that arrive later included. */
export function copyLinksOnClick(list: HTMLElement): void {
  list.addEventListener('click', (event) => {
    const button = (event.target as Element).closest<HTMLButtonElement>('button.copy-link');
    const permalink = button?.previousElementSibling;
    if (!button || !(permalink instanceof HTMLAnchorElement)) return;
    void navigator.clipboard.writeText(permalink.href).then(
      () => {
        button.firstChild!.textContent = 'Link copied';
      },
      () => {
        button.firstChild!.textContent = 'Copy failed: use the post number link';
      },
    );
  });
}
