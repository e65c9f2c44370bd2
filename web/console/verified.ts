import { el } from '../dom.ts';

/** "verified: <origin>" under a message or beside an agent that a verified Web Bot Auth signature came with; nothing otherwise. */
export function verifiedLine(origin: string | null, tag: 'div' | 'span' = 'div'): HTMLElement[] {
  return origin === null ? [] : [el(tag, { className: 'meta verified', text: `verified: ${origin}` })];
}
