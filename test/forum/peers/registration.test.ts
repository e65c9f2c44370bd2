import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, hexToken, json, ownApps, sharedAppWithFreshLimits, type TestApp } from '../../helpers.ts';
import { createTopic, join, readTopic, register, reply, type TopicPageBody } from '../support.ts';

// The tests on the default configuration share one app; the others start their own.
const shared = sharedAppWithFreshLimits();
const startOwnApp = ownApps();
let t: TestApp;
beforeEach(() => {
  t = shared();
});

const registerRaw = (body: Record<string, unknown>, remoteAddress = '10.9.0.1') =>
  t.inject({ method: 'POST', url: '/api/peers', payload: body, remoteAddress });

describe('peer registration (CONTRACT §6.1)', () => {
  it('issues an agent id and a 64-hex token, and a retry with the client token is a duplicate', async () => {
    const created = await registerRaw({ display_name: 'Scout' });
    expect(created.statusCode).toBe(201);
    const body = json<{ agent_id: string; access_token: string; duplicate: boolean }>(created);
    expect(body.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(body.duplicate).toBe(false);

    const token = hexToken('Ab');
    const payload = { display_name: 'Retrier', description: 'x', identity: { model_name: 'm', capabilities: ['a', 'b'] }, client_access_token: token };
    const first = await registerRaw(payload);
    expect(first.statusCode).toBe(201);
    const again = await registerRaw({ ...payload, client_access_token: token.toLowerCase() });
    expect(again.statusCode).toBe(200);
    expect(json(again)).toMatchObject({ agent_id: json(first).agent_id, access_token: token.toLowerCase(), duplicate: true });
    const other = await registerRaw({ ...payload, display_name: 'Someone else' });
    expect(other.statusCode).toBe(409);
    expect(json(other).code).toBe('client_token_conflict');
    // The token works: it can create a topic.
    await createTopic(t, { agent_id: json(first).agent_id as string, access_token: token });
  });

  it('validates the body: name length, control characters, identity shape', async () => {
    for (const bad of [
      { display_name: '' },
      { display_name: 'x'.repeat(61) },
      { display_name: 'two\nlines' },
      { display_name: 'ok', description: 'd'.repeat(501) },
      { display_name: 'ok', identity: { model_name: 5 } },
      { display_name: 'ok', identity: { capabilities: Array.from({ length: 21 }, () => 'c') } },
      { display_name: 'ok', discoverable: 'yes' },
      { display_name: 'ok', client_access_token: 'short' },
    ]) {
      const response = await registerRaw(bad);
      expect(response.statusCode, JSON.stringify(bad)).toBe(400);
      expect(json(response).code).toBe('invalid_request');
    }
    expect((await registerRaw({ display_name: 'x'.repeat(60), identity: { unknown_key: 1 } })).statusCode).toBe(201);
  });

  it('refuses a name that imitates the moderator, case-insensitively after trimming', async () => {
    t = await startOwnApp({ env: { FORUM_MODERATOR_NAME: 'Forum Keeper' } });
    for (const name of ['Forum Keeper', '  forum keeper ', 'FORUM KEEPER']) {
      const response = await registerRaw({ display_name: name });
      expect(response.statusCode).toBe(403);
      expect(json(response).code).toBe('display_name_reserved');
    }
    expect((await registerRaw({ display_name: 'Forum Keeper 2' })).statusCode).toBe(201);
  });

  it('refuses the moderator\'s name written with invisible, look-alike or reordering characters', async () => {
    for (const name of ['Moderator\u200b', 'Mod\u00aderator', 'M\u043ederator', 'Mod\u2060er\u200dator', 'ＭＯＤＥＲＡＴＯＲ', '𝐌𝐨𝐝𝐞𝐫𝐚𝐭𝐨𝐫', 'rnoderator', 'ᴍᴏᴅᴇʀᴀᴛᴏʀ', 'Mod\u200aerator', 'Mode\u0301rator', 'Moder\u{e0041}ator']) {
      const response = await registerRaw({ display_name: name });
      expect(response.statusCode, JSON.stringify(name)).toBe(403);
      expect(json(response)).toMatchObject({ code: 'display_name_reserved', field: 'display_name' });
    }
    for (const name of ['\u202eModerator', 'Moder\u2066ator', 'Mod\u2028erator']) {
      const response = await registerRaw({ display_name: name });
      expect(response.statusCode, JSON.stringify(name)).toBe(400);
      expect(json(response)).toMatchObject({ code: 'invalid_request', field: 'display_name' });
    }
    for (const name of ['Moderation Bot', 'Mediator', 'Modern Rat', 'Moderator Fan']) {
      expect((await registerRaw({ display_name: name })).statusCode, name).toBe(201);
    }
  });

  it('property: no mix of disguises reaches the moderator\'s name', async () => {
    t = await startOwnApp({ env: { LIMIT_PEER_REGISTRATION_SOURCE: '1000/1h' } });
    /** Per letter of "moderator": ways to write it that a reader takes for it. */
    const looks: Record<string, string[]> = {
      m: ['m', 'M', '\u041c', '\u043c', '\u039c', 'ｍ', '𝐦', '𝖒', 'ᴍ', 'rn', 'ⓜ'],
      o: ['o', 'O', '\u043e', '\u041e', '\u03bf', '\u039f', '0', 'ｏ', 'ᴏ', 'ℴ', 'ó', 'ö'],
      d: ['d', 'D', '\u0501', 'ⅾ', 'ｄ', '𝐝', 'ᴅ', 'cl', 'ď'],
      e: ['e', 'E', '\u0435', '\u0415', '\u03b5', '\u0395', 'ｅ', 'ᴇ', 'é', '\u0451'],
      r: ['r', 'R', '\u0433', 'ｒ', 'ʀ', '𝐫', 'ř'],
      a: ['a', 'A', '\u0430', '\u0410', '\u03b1', '\u0391', '\u0251', 'ａ', 'ᴀ', 'á'],
      t: ['t', 'T', '\u0442', '\u0422', '\u03c4', '\u03a4', 'ｔ', 'ᴛ', 'ť'],
    };
    /** Characters that show as nothing, or nearly: zero-width and format characters, fillers, thin spaces, marks. */
    const invisible = ['\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u034f', '\u180e', '\ufe0f', '\u{e0020}', '\u3164', '\u115f', '\u2009', '\u200a', '\u00a0', '\u0301', '\u2800', ' '];
    /** What a single-line field refuses outright. */
    const reordering = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c', '\u2028', '\u2029'];
    const gap = fc.array(fc.constantFrom(...invisible), { maxLength: 2 });
    const letters = fc.tuple(...[...'moderator'].map((letter) => fc.tuple(fc.constantFrom(...looks[letter]!), gap)));
    /** Half the names also carry a refused character after one of the first eight letters (inside the name: trimming keeps it). */
    const inserted = fc.option(fc.tuple(fc.constantFrom(...reordering), fc.nat({ max: 7 })), { freq: 2 });
    let reserved = 0;
    await fc.assert(
      fc.asyncProperty(gap, letters, inserted, async (lead, written, refused) => {
        const parts = written.map(([letter, after]) => [letter, ...after].join(''));
        if (refused) parts[refused[1]] += refused[0];
        const name = lead.join('') + parts.join('');
        const response = await registerRaw({ display_name: name });
        const expected = refused ? { status: 400, code: 'invalid_request' } : { status: 403, code: 'display_name_reserved' };
        expect(response.statusCode, JSON.stringify(name)).toBe(expected.status);
        expect(json(response)).toMatchObject({ code: expected.code, field: 'display_name' });
        if (!refused) reserved += 1;
      }),
      { numRuns: 300 },
    );
    expect(reserved).toBeGreaterThan(50);
    const agents = await t.store.db.selectFrom('peer_agents').select('id').execute();
    expect(agents).toEqual([]);
  });

  it('limits open registration per source and charges no retry', async () => {
    t = await startOwnApp({ env: { LIMIT_PEER_REGISTRATION_SOURCE: '2/1h' } });
    const token = hexToken('c');
    expect((await registerRaw({ display_name: 'A', client_access_token: token })).statusCode).toBe(201);
    expect((await registerRaw({ display_name: 'A', client_access_token: token })).statusCode).toBe(200);
    expect((await registerRaw({ display_name: 'B' })).statusCode).toBe(201);
    const refused = await registerRaw({ display_name: 'C' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBeDefined();
    expect((await registerRaw({ display_name: 'C' }, '10.9.0.2')).statusCode).toBe(201);
  });

  it('closed registration answers 403 registration_closed', async () => {
    t = await startOwnApp({ env: { FORUM_REGISTRATION: 'closed' } });
    const response = await registerRaw({ display_name: 'A' });
    expect(response.statusCode).toBe(403);
    expect(json(response).code).toBe('registration_closed');
  });

  it('invite registration takes each operator code once, even under a race', async () => {
    t = await startOwnApp({ env: { FORUM_REGISTRATION: 'invite' } });
    expect(json(await registerRaw({ display_name: 'A' })).code).toBe('invitation_required');
    expect((await t.inject({ method: 'POST', url: '/api/admin/peers/invitations' })).statusCode).toBe(401);
    const issued = await t.inject({ method: 'POST', url: '/api/admin/peers/invitations', headers: adminHeaders() });
    expect(issued.statusCode).toBe(201);
    const code = json<{ invitation_code: string }>(issued).invitation_code;
    const wrong = await registerRaw({ display_name: 'A', invitation_code: 'not-a-code' });
    expect(wrong.statusCode).toBe(403);

    const racers = await Promise.all(
      Array.from({ length: 6 }, (_, index) => registerRaw({ display_name: `Racer ${index}`, invitation_code: code }, `10.9.1.${index + 1}`)),
    );
    expect(racers.map((response) => response.statusCode).sort()).toEqual([201, 403, 403, 403, 403, 403]);
    const second = json<{ invitation_code: string }>(await t.inject({ method: 'POST', url: '/api/admin/peers/invitations', headers: adminHeaders() }));
    expect(second.invitation_code).not.toBe(code);
    expect((await registerRaw({ display_name: 'Late', invitation_code: second.invitation_code })).statusCode).toBe(201);
  });
});

describe('agent token and revocation', () => {
  it('a revoked agent retrying its registration gets 409 client_token_conflict, not a duplicate with a dead token (issue 29 item 9)', async () => {
    const body = { display_name: 'Retrier', client_access_token: hexToken('c') };
    const first = await registerRaw(body);
    expect(first.statusCode).toBe(201);
    expect((await t.inject({ method: 'POST', url: '/api/peers/revoke', headers: bearer(hexToken('c')) })).statusCode).toBe(200);
    const retry = await registerRaw(body);
    expect(retry.statusCode, retry.body).toBe(409);
    expect(json(retry).code).toBe('client_token_conflict');
    expect(json(retry).error).toMatch(/revoked/);
  });

  it('answers 401 agent_token_required for an absent, wrong or revoked token; revocation repeats as a duplicate', async () => {
    const agent = await register(t);
    const create = (headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/api/forum/topics', headers, payload: { title: 'T', message: 'M' } });
    for (const headers of [{}, bearer(hexToken('0')), bearer('not-hex')]) {
      const response = await create(headers);
      expect(response.statusCode).toBe(401);
      expect(json(response).code).toBe('agent_token_required');
    }
    const topic = await createTopic(t, agent);
    const revoke = () => t.inject({ method: 'POST', url: '/api/peers/revoke', headers: bearer(agent.access_token) });
    const first = await revoke();
    expect(first.statusCode).toBe(200);
    expect(json(first)).toMatchObject({ ok: true, agent_id: agent.agent_id, duplicate: false });
    expect(json(await revoke())).toMatchObject({ duplicate: true });
    expect(json(await create(bearer(agent.access_token))).code).toBe('agent_token_required');
    // Its thread token died with it; its post stays.
    const posted = await reply(t, topic.topic_id, topic.thread_access_token, 'after revocation');
    expect(posted.statusCode).toBe(404);
    const read = json<TopicPageBody>(await readTopic(t, topic.topic_id));
    expect(read.messages.map((message) => message.message)).toEqual(['First post']);
    expect(read.topic.member_count).toBe(0);
    expect((await t.inject({ method: 'POST', url: '/api/peers/revoke' })).statusCode).toBe(401);
  });

  it('lets the operator revoke an agent: its token and every thread token die', async () => {
    const owner = await register(t);
    const member = await register(t);
    const topic = await createTopic(t, owner);
    const membership = await join(t, member, topic.topic_id);
    const unknown = await t.inject({ method: 'POST', url: `/api/admin/peers/${'0'.repeat(8)}-0000-7000-8000-${'0'.repeat(12)}/revoke`, headers: adminHeaders() });
    expect(unknown.statusCode).toBe(404);
    expect(json(unknown).code).toBe('agent_not_found');
    expect((await t.inject({ method: 'POST', url: `/api/admin/peers/${member.agent_id}/revoke` })).statusCode).toBe(401);
    const revoked = await t.inject({ method: 'POST', url: `/api/admin/peers/${member.agent_id}/revoke`, headers: adminHeaders() });
    expect(json(revoked)).toMatchObject({ ok: true, duplicate: false });
    expect(json(await t.inject({ method: 'POST', url: `/api/admin/peers/${member.agent_id}/revoke`, headers: adminHeaders() }))).toMatchObject({ duplicate: true });
    expect((await reply(t, topic.topic_id, membership.thread_access_token, 'hello')).statusCode).toBe(404);
    expect((await reply(t, topic.topic_id, topic.thread_access_token, 'owner still here')).statusCode).toBe(201);
    const joinAgain = await t.inject({ method: 'POST', url: `/api/forum/topics/${topic.topic_id}/join`, headers: bearer(member.access_token) });
    expect(joinAgain.statusCode).toBe(401);
  });
});

describe('a newcomer\'s next steps', () => {
  interface NextSteps {
    agent_id: string;
    access_token: string;
    lobby_topic_id: string;
    join_lobby_url: string;
    forum_url: string;
    next_steps: string;
    note: string;
  }

  it('the registration receipt names the lobby, its join URL and the forum, and following them posts in the lobby', async () => {
    t = await startOwnApp({ env: { PUBLIC_URL: 'https://parley.example' } });
    const created = await registerRaw({ display_name: 'Newcomer', client_access_token: hexToken('4e') });
    expect(created.statusCode).toBe(201);
    const receipt = json<NextSteps>(created);
    const overview = json<{ lobby_topic_id: string }>(await t.inject({ method: 'GET', url: '/api/forum' }));
    expect(receipt.lobby_topic_id).toBe(overview.lobby_topic_id);
    expect(receipt.join_lobby_url).toBe(`https://parley.example/api/forum/topics/${overview.lobby_topic_id}/join`);
    expect(receipt.forum_url).toBe('https://parley.example/api/forum');
    expect(receipt.next_steps).toContain(receipt.join_lobby_url);
    expect(receipt.note).toMatch(/private/);
    expect(receipt.note).toMatch(/self-reported/);
    // The token is in the receipt once, as access_token only.
    expect(created.body.split(receipt.access_token)).toHaveLength(2);

    const retry = await registerRaw({ display_name: 'Newcomer', client_access_token: hexToken('4e') });
    expect(retry.statusCode).toBe(200);
    expect(json(retry)).toEqual({ ...receipt, duplicate: true });

    const joined = await t.inject({ method: 'POST', url: new URL(receipt.join_lobby_url).pathname, headers: bearer(receipt.access_token) });
    expect(joined.statusCode).toBe(201);
    const thread = json<{ thread_access_token: string; reply_url: string }>(joined);
    const hello = await t.inject({
      method: 'POST',
      url: new URL(thread.reply_url).pathname,
      headers: bearer(thread.thread_access_token),
      payload: { message: 'Hello, I am Newcomer.', client_message_id: 'hello-lobby-0001' },
    });
    expect(hello.statusCode).toBe(201);
    const page = await readTopic(t, receipt.lobby_topic_id);
    expect(json<TopicPageBody>(page).messages.map((message) => message.message)).toContain('Hello, I am Newcomer.');
  });

  it.each(['open', 'invite', 'closed'] as const)('GET /api/forum tells the registration mode %s and how to register under it', async (mode) => {
    t = await startOwnApp({ env: { FORUM_REGISTRATION: mode } });
    const overview = json<{ registration: string; register: string }>(await t.inject({ method: 'GET', url: '/api/forum' }));
    expect(overview.registration).toBe(mode);
    expect(overview.register).toMatch({ open: /is open/, invite: /by invitation.*invitation_code/, closed: /is closed.*registration_closed/ }[mode]);
    // What the overview says is what registration does.
    const attempt = await registerRaw({ display_name: `Probe ${mode}` });
    expect(attempt.statusCode).toBe({ open: 201, invite: 403, closed: 403 }[mode]);
  });
});
