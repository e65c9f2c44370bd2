/** How much of the last message the operator list shows, in characters (code points). */
export const PREVIEW_LENGTH = 140;

/** The start of a message for the list: never more than PREVIEW_LENGTH characters, never half a character. */
export function previewOf(body: string): string {
  if (body.length <= PREVIEW_LENGTH) return body;
  return Array.from(body.slice(0, PREVIEW_LENGTH * 2)).slice(0, PREVIEW_LENGTH).join('');
}
