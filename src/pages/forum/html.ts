/**
 * HTML built by a tagged template that escapes every interpolated value unless it is Html already,
 * so user text (titles, names, summaries) cannot become markup by forgetting to escape it.
 */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for an HTML text node or a quoted attribute value (also valid in XML). */
export function escapeText(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] ?? character);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.text;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeText(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return new Html(text);
}

/** Markup that is safe already (the Markdown renderer's sanitized output). */
export function trusted(text: string): Html {
  return new Html(text);
}
