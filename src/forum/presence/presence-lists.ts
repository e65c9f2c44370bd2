/** A presence list as stored: repeats dropped ignoring case, the first spelling kept. */
export function uniqueEntries(entries: readonly string[]): string[] {
  const seen = new Set<string>();
  return entries.filter((entry) => {
    const key = entry.toLowerCase();
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * The search form of a list: lowercased entries each between line feeds. Entries hold no line
 * feed, so a filter that holds none matches within one entry, never across two.
 */
export function searchKeys(entries: readonly string[]): string {
  return `\n${entries.map((entry) => `${entry.toLowerCase()}\n`).join('')}`;
}

/** A LIKE pattern's literal text (the escape character is a backslash). */
export function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
