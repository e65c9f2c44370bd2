import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, json, startApp, type TestApp } from '../helpers.ts';
import { formFields, LINK_ENV, linkPath, postForm } from './support.ts';

/** Signed one-tap links (issue 30 item 2): the page, its forms, and what a link can and cannot do. */
describe('signed action links', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: { ...LINK_ENV, LIMIT_ACTION_LINK: '4/10m' } });
  });
  afterAll(() => t.close());
  beforeEach(async () => {
    await t.store.db.deleteFrom('limit_counters').execute();
  });

  const adminRead = async (id: string) =>
    json<{ conversation: { status: string }; messages: { role: string; body: string }[] }>(await t.inject({ method: 'GET', url: `/api/admin/conversations/${id}`, headers: adminHeaders() }));

  it('opens the thread without the administrator token, with no referrer and nothing cached', async () => {
    const created = await createConversation(t, { message: 'Is <b>anyone</b> there?', name: 'Visitor Vega' });
    const page = await t.inject({ method: 'GET', url: linkPath(t, `conversation:${created.conversation_id}`) });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['cache-control']).toBe('no-store');
    expect(page.headers['content-security-policy']).toContain("form-action 'self'");
    expect(page.body).toContain('Conversation with Visitor Vega');
    expect(page.body).toContain('Is &lt;b&gt;anyone&lt;/b&gt; there?');
    expect(page.body).not.toContain('<script');
    expect(page.body).toMatch(/<button type="submit" name="action" value="close">Close<\/button>/);
    expect(page.body).toMatch(/value="spam" class="danger">Spam</);
  });

  it('replies as the operator: the visitor sees it, a held read wakes, and the same form sent twice is one reply', async () => {
    const created = await createConversation(t, { message: 'Waiting for you' });
    const path = linkPath(t, `conversation:${created.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    const visitorUrl = `/api/conversations/${created.conversation_id}`;
    const etag = (await t.inject({ method: 'GET', url: visitorUrl, headers: bearer(created.access_token) })).headers.etag as string;
    const held = t.inject({ method: 'GET', url: `${visitorUrl}?wait=20`, headers: { ...bearer(created.access_token), 'if-none-match': etag } });
    await expect.poll(() => t.app.services.live.waiting).toBe(1);

    const sent = await postForm(t, path, { ...fields, action: 'reply', message: '  Here I am.  ' });
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`${path}?done=reply`);
    const woken = await held;
    expect(woken.statusCode).toBe(200);
    expect(json<{ messages: { role: string; body: string }[] }>(woken).messages.at(-1)).toMatchObject({ role: 'admin', body: 'Here I am.' });

    const again = await postForm(t, path, { ...fields, action: 'reply', message: 'Here I am.' });
    expect(again.statusCode).toBe(303);
    expect((await adminRead(created.conversation_id)).messages.filter((message) => message.role === 'admin')).toHaveLength(1);
    const shown = await t.inject({ method: 'GET', url: `${path}?done=reply` });
    expect(shown.body).toContain('Reply sent.');
    expect(shown.body).toContain('Here I am.');
  });

  it('closes, marks spam and reopens; a closed conversation takes no reply until reopened', async () => {
    const created = await createConversation(t);
    const path = linkPath(t, `conversation:${created.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    expect((await postForm(t, path, { ...fields, action: 'close' })).statusCode).toBe(303);
    expect((await adminRead(created.conversation_id)).conversation.status).toBe('closed');
    const refused = await postForm(t, path, { ...fields, action: 'reply', message: 'Too late' });
    expect(refused.statusCode).toBe(409);
    expect(refused.body).toContain('reopen it first');
    expect(refused.body).toContain('reopen it to answer');
    expect((await postForm(t, path, { ...fields, action: 'spam' })).statusCode).toBe(303);
    expect((await adminRead(created.conversation_id)).conversation.status).toBe('spam');
    expect((await postForm(t, path, { ...fields, action: 'open' })).statusCode).toBe(303);
    expect((await adminRead(created.conversation_id)).conversation.status).toBe('open');
  });

  it('acts on its own conversation only: another id in the payload, or another link\'s form token, is refused', async () => {
    const mine = await createConversation(t);
    const other = await createConversation(t);
    const path = linkPath(t, `conversation:${mine.conversation_id}`);
    const otherPath = linkPath(t, `conversation:${other.conversation_id}`);
    const [payload, signature] = path.slice('/act/'.length).split('.') as [string, string];
    const bytes = Buffer.from(payload, 'base64url');
    Buffer.from(other.conversation_id.replaceAll('-', ''), 'hex').copy(bytes, 1);
    const swapped = `/act/${bytes.toString('base64url')}.${signature}`;
    expect((await t.inject({ method: 'GET', url: swapped })).statusCode).toBe(404);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    expect((await postForm(t, swapped, { ...fields, action: 'close' })).statusCode).toBe(404);
    expect((await postForm(t, otherPath, { ...fields, action: 'close' })).statusCode).toBe(403);
    expect((await adminRead(other.conversation_id)).conversation.status).toBe('open');
  });

  it('refuses an altered link, an expired one (410), and a link signed with another key', async () => {
    const created = await createConversation(t);
    const path = linkPath(t, `conversation:${created.conversation_id}`);
    const last = path.at(-1) === 'A' ? 'B' : 'A';
    for (const altered of [`${path.slice(0, -1)}${last}`, `${path}x`, path.replace('.', ''), `${path}.extra`, '/act/nothing']) {
      const page = await t.inject({ method: 'GET', url: altered });
      expect(page.statusCode, altered).toBe(404);
      expect(page.body).toContain('This link does not work');
    }
    const rotated = await startApp({ env: { ...LINK_ENV, ACTION_KEY: 'another-action-key-0123456789abcdef0123', DATABASE_URL: t.config.databaseUrl } });
    try {
      expect((await rotated.inject({ method: 'GET', url: path })).statusCode).toBe(404);
    } finally {
      await rotated.close();
    }
    t.clock.advance(72 * 3_600_000);
    const expired = await t.inject({ method: 'GET', url: path });
    expect(expired.statusCode).toBe(410);
    expect(expired.body).toContain('This link has expired');
  });

  it('refuses cross-site posts and posts without the form token', async () => {
    const created = await createConversation(t);
    const path = linkPath(t, `conversation:${created.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    const close = { ...fields, action: 'close' };
    const crossSite: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'https://evil.example' }];
    for (const headers of crossSite) {
      expect((await postForm(t, path, close, headers)).statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect((await postForm(t, path, { action: 'close' })).statusCode).toBe(403);
    expect((await postForm(t, path, { ...close, form_token: `${fields.form_token.slice(0, -1)}${fields.form_token.endsWith('A') ? 'B' : 'A'}` })).statusCode).toBe(403);
    expect((await adminRead(created.conversation_id)).conversation.status).toBe('open');
    // A browser that sends no Sec-Fetch-Site and a null Origin (no-referrer) is left to the form token.
    expect((await postForm(t, path, close, { origin: 'null' })).statusCode).toBe(303);
  });

  it('limits the actions of one link (ACTION_LINK), not of another, and a retry is never charged', async () => {
    const created = await createConversation(t);
    const path = linkPath(t, `conversation:${created.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    for (let index = 0; index < 4; index += 1) {
      expect((await postForm(t, path, { ...fields, nonce: `nonce-${index}-abcdef`, action: 'reply', message: `Reply ${index}` })).statusCode).toBe(303);
    }
    expect((await postForm(t, path, { ...fields, nonce: 'nonce-0-abcdef', action: 'reply', message: 'Reply 0' })).statusCode).toBe(303);
    const limited = await postForm(t, path, { ...fields, nonce: 'nonce-9-abcdef', action: 'reply', message: 'One more' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect(limited.body).toContain('One more');
    t.clock.advance(1);
    const fresh = linkPath(t, `conversation:${created.conversation_id}`);
    expect((await postForm(t, fresh, { ...formFields(await t.inject({ method: 'GET', url: fresh })), action: 'reply', message: 'Through a new link' })).statusCode).toBe(303);
    expect((await adminRead(created.conversation_id)).messages.filter((message) => message.role === 'admin')).toHaveLength(5);
  });

  it('never writes a link into a log line or a metric label', async () => {
    const created = await createConversation(t);
    const path = linkPath(t, `conversation:${created.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    await postForm(t, path, { ...fields, action: 'reply', message: 'Logged?' });
    await t.inject({ method: 'GET', url: `${path}x` });
    const metrics = await t.inject({ method: 'GET', url: '/metrics', headers: adminHeaders() });
    expect(metrics.statusCode).toBe(200);
    expect(metrics.body).toContain('route="/act/:link"');
    const signature = path.split('.')[1]!;
    const logs = t.logs.join('\n');
    expect(logs).toContain('/act/[redacted]');
    for (const secret of [path, signature, fields.form_token, path.slice('/act/'.length, 40)]) {
      expect(logs).not.toContain(secret);
      expect(metrics.body).not.toContain(secret);
    }
  });
});
