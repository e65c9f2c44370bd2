import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, json, type Created, type TestApp } from '../helpers.ts';
import { startRoomyApp, type Message } from './support.ts';

type Rendered = Message & { body_html?: string };

const VISITOR_TEXT = 'See **this** <script>alert(1)</script> at https://example.com/x and [home](/admin/)\n\n```\nconst wide = 1;\n```';
const OPERATOR_TEXT = 'Read [the guide](https://example.com/guide) and `npm test`.';

// Issue #31 item 1: messages carry body_html, the forum's safe Markdown rendering, for the pages.
describe('rendered messages', () => {
  let t: TestApp;
  let created: Created;
  beforeAll(async () => {
    t = await startRoomyApp();
    created = await createConversation(t, { message: VISITOR_TEXT, name: 'Markdown Visitor' });
    const sent = await t.inject({ method: 'POST', url: `/api/admin/conversations/${created.conversation_id}/messages`, headers: adminHeaders(), payload: { message: OPERATOR_TEXT } });
    expect(sent.statusCode).toBe(201);
  });
  afterAll(() => t.close());

  it('gives the console both sides rendered: raw HTML escaped, links marked, relative links dropped, code blocks focusable', async () => {
    const response = await t.inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() });
    expect(response.statusCode).toBe(200);
    const [visitor, operator] = json<{ messages: Rendered[] }>(response).messages;
    expect(visitor!.body).toBe(VISITOR_TEXT);
    expect(visitor!.body_html).toContain('<strong>this</strong>');
    expect(visitor!.body_html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(visitor!.body_html).not.toContain('<script');
    expect(visitor!.body_html).toContain('<a href="https://example.com/x" rel="noopener noreferrer nofollow ugc">https://example.com/x</a>');
    expect(visitor!.body_html).not.toContain('href="/admin/"');
    expect(visitor!.body_html).toContain('<pre tabindex="0"><code>const wide = 1;\n</code></pre>');
    expect(operator!.body_html).toBe('<p>Read <a href="https://example.com/guide" rel="noopener noreferrer nofollow ugc">the guide</a> and <code>npm test</code>.</p>');
  });

  it('gives the visitor the operator\'s replies rendered and its own messages as written only', async () => {
    const response = await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}`, headers: bearer(created.access_token) });
    expect(response.statusCode).toBe(200);
    const [visitor, operator] = json<{ messages: Rendered[] }>(response).messages;
    expect(visitor).not.toHaveProperty('body_html');
    expect(operator!.body).toBe(OPERATOR_TEXT);
    expect(operator!.body_html).toContain('<code>npm test</code>');
  });
});
