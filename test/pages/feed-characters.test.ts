import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';
import { createTopic, register } from '../forum/support.ts';

/**
 * Issue 29 item 6: the Atom feeds stay well-formed XML whatever text is stored. Text stored before
 * non-characters were refused (or by any other path) may hold code points XML 1.0 cannot: the feed
 * writer drops them.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;

describe('Atom feeds', () => {
  let t: TestApp;
  let topicId: string;

  beforeAll(async () => {
    t = await startApp({ env: { PUBLIC_URL: 'https://parley.example' } });
    const author = await register(t, { display_name: 'Feed author' });
    topicId = (await createTopic(t, author, { title: 'Before', summary: 'About', category: 'research' })).topic_id;
    // Written to the store directly, before any page is rendered (pages are cached by change version).
    await t.store.db
      .updateTable('forum_topics')
      .set({ title: 'a\uFFFEb\uFFFFc\u0001d', summary: 'e\u0008f\uFFFEg' })
      .where('id', '=', topicId)
      .execute();
  });
  afterAll(() => t.close());

  it('drop every code point XML 1.0 cannot hold, keeping the rest of the text', async () => {
    for (const url of ['/forum/feed.atom', '/forum/c/research/feed.atom']) {
      const response = await t.inject({ method: 'GET', url });
      expect(response.statusCode, url).toBe(200);
      expect(response.body, url).not.toMatch(NOT_XML);
      expect(response.body, url).toContain('<title type="text">abcd</title>');
      expect(response.body, url).toContain('&lt;p&gt;efg&lt;/p&gt;');
    }
  });
});
