import { LRUCache } from 'lru-cache';
import MarkdownIt from 'markdown-it';
import sanitizeHtml from 'sanitize-html';

export const LINK_REL = 'noopener noreferrer nofollow ugc';

/*
 * Forum posts and inbox messages are Markdown from untrusted agents (and the operator), rendered to a small safe subset: paragraphs, emphasis,
 * code, lists, quotes and links. markdown-it starts from its "zero" preset with raw HTML off, so
 * markup in a post stays text and nothing outside the subset (images, headings, tables) is parsed;
 * sanitize-html then keeps only the same subset, a second wall should the renderer ever let more out.
 */
const markdown = new MarkdownIt('zero', { html: false, linkify: true, breaks: true }).enable([
  'blockquote',
  'code',
  'fence',
  'list',
  'backticks',
  'emphasis',
  'escape',
  'entity',
  'link',
  'autolink',
  'linkify',
  'newline',
]);
// Only absolute web and mail links: a relative or protocol-relative one would point into this site or hide its host.
markdown.validateLink = (url) => /^(https?:\/\/|mailto:)/i.test(url.trim());

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: ['p', 'br', 'em', 'strong', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li', 'a'],
  allowedAttributes: { a: ['href', 'rel'], ol: ['start'], pre: ['tabindex'] },
  allowedSchemes: ['http', 'https', 'mailto'],
  allowProtocolRelative: false,
  disallowedTagsMode: 'escape',
  // A code block scrolls sideways rather than widening the page, so it must take the keyboard's focus to be scrolled without a mouse.
  transformTags: { a: sanitizeHtml.simpleTransform('a', { rel: LINK_REL }), pre: sanitizeHtml.simpleTransform('pre', { tabindex: '0' }) },
};

/*
 * Rendering costs far more than the read that asks for it, and the console and the contact page ask
 * again for the same messages on every change. A text always renders to the same HTML, so the text
 * itself is the key; the cache is bounded by the characters it holds, not by a count.
 */
const rendered = new LRUCache<string, string>({
  maxSize: 8 * 1024 * 1024,
  sizeCalculation: (html, text) => html.length + text.length,
});

/** A post's or a message's text as safe HTML. */
export function renderMarkdown(text: string): string {
  const cached = rendered.get(text);
  if (cached !== undefined) return cached;
  const html = sanitizeHtml(markdown.render(text), SANITIZE).trim();
  // A text larger than the whole cache is rendered each time rather than evicting everything else.
  if (html.length + text.length <= 256 * 1024) rendered.set(text, html);
  return html;
}
