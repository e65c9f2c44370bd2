import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, json, startApp, type TestApp } from '../helpers.ts';
import { formFields, LINK_ENV, linkPath, postForm } from './support.ts';

const DAY = 86_400_000;

interface Listed {
  id: string;
  scope: string;
  conversation_id: string | null;
  reason: string;
  expires_at: string | null;
}

/** Block from the signed link's page (issue 30 item 2): the blocks feature's own write, as the console makes it. */
describe('blocking from an action link', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp({ env: { ...LINK_ENV, LIMIT_ACTION_LINK: '20/10m' } });
  });
  afterAll(() => t.close());

  let address = 0;
  /** Each test's visitor comes from an address of its own, so that a source block holds on that test alone. */
  async function visitor(): Promise<{ conversation_id: string; access_token: string; from: string }> {
    address += 1;
    const from = `127.0.${address}.1`;
    const response = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Buy cheap followers now' }, remoteAddress: from });
    expect(response.statusCode, response.body).toBe(201);
    return { ...json<{ conversation_id: string; access_token: string }>(response), from };
  }

  const followUp = (conversation: { conversation_id: string; access_token: string; from: string }) =>
    t.inject({
      method: 'POST',
      url: `/api/conversations/${conversation.conversation_id}/messages`,
      headers: bearer(conversation.access_token),
      payload: { message: 'Again' },
      remoteAddress: conversation.from,
    });

  const blocksOf = async (conversationId: string) =>
    json<{ blocks: Listed[] }>(await t.inject({ method: 'GET', url: '/api/admin/blocks?limit=500', headers: adminHeaders() })).blocks.filter(
      (block) => block.conversation_id === conversationId,
    );

  it('offers Block with its scopes and expiries on a conversation\'s page, as a plain form', async () => {
    const conversation = await visitor();
    const page = await t.inject({ method: 'GET', url: linkPath(t, `conversation:${conversation.conversation_id}`) });
    expect(page.body).toMatch(/<input type="radio" name="scope" value="conversation" checked> This conversation/);
    expect(page.body).toContain('<input type="radio" name="scope" value="source">');
    for (const expiry of ['1d', '7d', '30d', 'never']) expect(page.body).toContain(`<option value="${expiry}"`);
    expect(page.body).toMatch(/<button type="submit" name="action" value="block" class="danger">Block<\/button>/);
    expect(page.body).not.toContain('<script');
  });

  it('blocks this conversation for 7 days: its follow-ups are refused, the page confirms, and the same form sent again is one block', async () => {
    const conversation = await visitor();
    const path = linkPath(t, `conversation:${conversation.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    const form = { ...fields, action: 'block', scope: 'conversation', expires_in: '7d' };

    const sent = await postForm(t, path, form);
    expect(sent.statusCode).toBe(303);
    expect(sent.headers.location).toBe(`${path}?done=block`);
    const shown = await t.inject({ method: 'GET', url: `${path}?done=block` });
    expect(shown.body).toContain('Blocked. Lift the block in the console if you change your mind.');
    expect(shown.body).toContain(`Blocked until ${new Date(t.clock.now() + 7 * DAY).toISOString().slice(0, 16).replace('T', ' ')} UTC`);

    t.clock.advance(1_000);
    expect((await postForm(t, path, form)).statusCode).toBe(303);
    const blocks = await blocksOf(conversation.conversation_id);
    expect(blocks).toHaveLength(1);
    expect(blocks[0]).toMatchObject({ scope: 'conversation', reason: 'Made from an action link.', expires_at: new Date(t.clock.now() - 1_000 + 7 * DAY).toISOString() });
    expectError(await followUp(conversation), 403, 'blocked');

    // The same form with other choices is another request under the same nonce: refused, nothing made.
    const other = await postForm(t, path, { ...form, scope: 'source' });
    expect(other.statusCode).toBe(400);
    expect(other.body).toContain('This form already made another block');
    expect(await blocksOf(conversation.conversation_id)).toHaveLength(1);
  });

  it('blocks the source for good: a new conversation from that address is refused; a fresh page makes another block', async () => {
    const conversation = await visitor();
    const path = linkPath(t, `conversation:${conversation.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    expect((await postForm(t, path, { ...fields, action: 'block', scope: 'source', expires_in: 'never' })).statusCode).toBe(303);
    expect(await blocksOf(conversation.conversation_id)).toMatchObject([{ scope: 'source', expires_at: null }]);
    expectError(await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Me again' }, remoteAddress: conversation.from }), 403, 'blocked');
    expectError(await followUp(conversation), 403, 'blocked');

    const again = formFields(await t.inject({ method: 'GET', url: path }));
    expect(again.nonce).not.toBe(fields.nonce);
    expect((await postForm(t, path, { ...again, action: 'block', scope: 'conversation', expires_in: '1d' })).statusCode).toBe(303);
    expect((await blocksOf(conversation.conversation_id)).map((block) => block.scope).sort()).toEqual(['conversation', 'source']);
  });

  it('takes the other actions\' checks: a cross-site post, a missing form token or an unknown choice makes no block', async () => {
    const conversation = await visitor();
    const path = linkPath(t, `conversation:${conversation.conversation_id}`);
    const fields = formFields(await t.inject({ method: 'GET', url: path }));
    const form = { ...fields, action: 'block', scope: 'source', expires_in: '30d' };
    const crossSite: Record<string, string>[] = [{ 'sec-fetch-site': 'cross-site' }, { origin: 'https://evil.example' }];
    for (const headers of crossSite) {
      expect((await postForm(t, path, form, headers)).statusCode, JSON.stringify(headers)).toBe(403);
    }
    expect((await postForm(t, path, { ...form, form_token: '' })).statusCode).toBe(403);
    for (const choice of [{ scope: 'agent' }, { expires_in: '365d' }, { scope: '' }]) {
      const refused = await postForm(t, path, { ...form, ...choice });
      expect(refused.statusCode, JSON.stringify(choice)).toBe(400);
      expect(refused.body).toContain('Choose what to block and for how long.');
    }
    expect(await blocksOf(conversation.conversation_id)).toEqual([]);
    expect((await followUp(conversation)).statusCode).toBe(201);
  });
});
