import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT_BYTES } from '../../src/http/json-body.ts';
import { bearer, countRows, createConversation, expectApiHeaders, expectError, ISO_MILLIS, json, startApp, UUID_V7, type Created, type TestApp } from '../helpers.ts';
import { readConversation } from '../inbox/support.ts';

// CONTRACT §1: conventions every /api route keeps, proven on the visitor routes.
describe('HTTP conventions', () => {
  let t: TestApp;
  let created: Created;
  const post = (payload: string | Buffer, headers: Record<string, string> = {}) =>
    t.inject({ method: 'POST', url: '/api/conversations', payload, headers });
  const asJson = { 'content-type': 'application/json' };

  beforeAll(async () => {
    t = await startApp({ env: { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h' } });
    created = await createConversation(t);
  });
  afterAll(() => t.close());

  describe('content type', () => {
    it('refuses a body without a Content-Type with 415', async () => {
      expectError(await post('{"message":"hi"}'), 415, 'unsupported_media_type');
    });

    it.each(['text/plain', 'application/x-www-form-urlencoded', 'application/jsonx', 'multipart/form-data; boundary=x'])(
      'refuses Content-Type %s with 415',
      async (type) => {
        expectError(await post('{"message":"hi"}', { 'content-type': type }), 415, 'unsupported_media_type');
      },
    );

    it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON; charset=UTF-8'])('accepts Content-Type %s', async (type) => {
      const response = await post('{"message":"hi"}', { 'content-type': type });
      expect(response.statusCode, response.body).toBe(201);
    });

    it('refuses a follow-up without a Content-Type with 415', async () => {
      const response = await t.inject({
        method: 'POST',
        url: `/api/conversations/${created.conversation_id}/messages`,
        headers: bearer(created.access_token),
        payload: '{"message":"hi"}',
      });
      expectError(response, 415, 'unsupported_media_type');
    });
  });

  describe('body size', () => {
    /** A valid creation body of exactly `bytes` bytes (the padding is an ignored unknown property). */
    const bodyOf = (bytes: number) => {
      const shell = JSON.stringify({ message: 'sized', pad: '' });
      return JSON.stringify({ message: 'sized', pad: 'p'.repeat(bytes - shell.length) });
    };

    it('accepts a body of exactly 32 KiB', async () => {
      const body = bodyOf(BODY_LIMIT_BYTES);
      expect(Buffer.byteLength(body)).toBe(32 * 1024);
      const response = await post(body, asJson);
      expect(response.statusCode, response.body).toBe(201);
    });

    it('refuses a body one byte over 32 KiB with 413 and stores nothing', async () => {
      const before = await countRows(t, 'conversations');
      const body = bodyOf(BODY_LIMIT_BYTES + 1);
      expect(Buffer.byteLength(body)).toBe(32 * 1024 + 1);
      expectError(await post(body, asJson), 413, 'payload_too_large');
      expect(await countRows(t, 'conversations')).toBe(before);
    });
    it('accepts 4000 emoji sent with every character escaped (48 KB on the wire, 16 KB of content)', async () => {
      const message = '\u{1F600}'.repeat(4000);
      const escape = (pair: string) => `\\u${pair.charCodeAt(0).toString(16)}\\u${pair.charCodeAt(1).toString(16)}`;
      const escaped = JSON.stringify({ message }).replace(/[\u{10000}-\u{10FFFF}]/gu, escape);
      expect(Buffer.byteLength(escaped)).toBeGreaterThan(BODY_LIMIT_BYTES);
      const response = await post(escaped, asJson);
      expect(response.statusCode, response.body).toBe(201);
      const read = await t.inject({ method: 'GET', url: `/api/conversations/${response.json().conversation_id}`, headers: { authorization: `Bearer ${response.json().access_token}` } });
      expect(read.json().messages[0].body).toBe(message);
    });

    it('refuses escaped content that decodes to more than 32 KiB', async () => {
      const escaped = JSON.stringify({ message: 'sized', pad: 'x'.repeat(BODY_LIMIT_BYTES) }).replace(/x/g, '\\u0078');
      expectError(await post(escaped, asJson), 413, 'payload_too_large');
    });

    it('refuses a body larger than the transport limit before parsing it', async () => {
      expectError(await post(bodyOf(6 * BODY_LIMIT_BYTES + 1), asJson), 413, 'payload_too_large');
    });
  });

  describe('JSON', () => {
    it.each([
      ['truncated', '{"message":'],
      ['trailing comma', '{"message":"hi",}'],
      ['single quotes', "{'message':'hi'}"],
      ['two documents', '{"message":"a"}{"message":"b"}'],
    ])('answers 400 invalid_json for malformed JSON (%s)', async (_label, body) => {
      expectError(await post(body, asJson), 400, 'invalid_json');
    });

    it('answers 400 invalid_json for invalid UTF-8 bytes', async () => {
      const body = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]);
      expectError(await post(body, asJson), 400, 'invalid_json');
      const overlong = Buffer.concat([Buffer.from('{"message":"'), Buffer.from([0xc0, 0xaf]), Buffer.from('"}')]);
      expectError(await post(overlong, asJson), 400, 'invalid_json');
    });

    it('answers 400 invalid_json for an unpaired surrogate escape (not encodable as UTF-8)', async () => {
      expectError(await post('{"message":"half \\ud83d of an emoji"}', asJson), 400, 'invalid_json');
      expectError(await post('{"message":"ok","name":"\\udc00"}', asJson), 400, 'invalid_json');
      // A complete pair written as escapes is a valid character.
      const paired = await post('{"message":"\\ud83d\\ude00"}', asJson);
      expect(paired.statusCode, paired.body).toBe(201);
    });

    it.each([
      ['an array', '[{"message":"hi"}]'],
      ['a string', '"hi"'],
      ['null', 'null'],
      ['a number', '42'],
      ['true', 'true'],
      ['an empty body', ''],
    ])('answers 400 invalid_request for a body that is %s', async (_label, body) => {
      const response = await post(body, asJson);
      expectError(response, 400, 'invalid_request');
    });

    it('answers 400 for a follow-up body that is not an object', async () => {
      const response = await t.inject({
        method: 'POST',
        url: `/api/conversations/${created.conversation_id}/messages`,
        headers: { ...bearer(created.access_token), ...asJson },
        payload: '["hi"]',
      });
      expectError(response, 400, 'invalid_request');
    });

    it('ignores unknown properties and never stores or echoes them', async () => {
      const response = await post(
        JSON.stringify({ message: 'with extras', role: 'admin', status: 'closed', review_label: 'human_contact', future_field: { nested: [1, 2] } }),
        asJson,
      );
      expect(response.statusCode, response.body).toBe(201);
      const receipt = json<Created>(response);
      expect(receipt.status).toBe('open');
      const read = json<{ status: string; messages: Array<{ role: string; body: string }> }>(
        await readConversation(t, receipt.conversation_id, receipt.access_token),
      );
      expect(read.status).toBe('open');
      expect(read.messages).toEqual([expect.objectContaining({ role: 'visitor', body: 'with extras' })]);
      expect(JSON.stringify(read)).not.toContain('future_field');
    });

    it('answers deeply nested JSON with a 4xx, never a 500', async () => {
      for (const depth of [1_000, 16_000]) {
        const response = await post(`{"message":"deep","extra":${'['.repeat(depth)}${']'.repeat(depth)}}`, asJson);
        expect(response.statusCode, `depth ${depth}: ${response.body}`).toBeLessThan(500);
      }
    });

    it('drops prototype-pollution keys instead of failing', async () => {
      const response = await post('{"message":"proto","__proto__":{"polluted":true},"constructor":{"prototype":{"x":1}}}', asJson);
      expect(response.statusCode, response.body).toBe(201);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('routing', () => {
    it.each(['/api/nothing', '/api/conversations/x/y/z', '/api', '/api/health/'])('answers 404 not_found on the unknown path %s', async (url) => {
      const response = await t.inject({ method: 'GET', url });
      expectError(response, 404, 'not_found');
    });

    it.each([
      ['DELETE', '/api/conversations', ['POST']],
      ['GET', '/api/conversations', ['POST']],
      ['PUT', '/api/health', ['GET', 'HEAD']],
      ['POST', '/api/agent-guide', ['GET', 'HEAD']],
      ['GET', '/api/conversations/01936b2e-0000-7000-8000-000000000000/messages', ['POST']],
      ['PATCH', '/api/conversations/01936b2e-0000-7000-8000-000000000000', ['GET', 'HEAD']],
    ])('answers %s %s with 405 and an Allow header', async (method, url, allowed) => {
      const response = await t.inject({ method: method as 'GET', url });
      expectError(response, 405, 'method_not_allowed');
      const allow = String(response.headers.allow).split(',').map((item) => item.trim());
      expect(allow.sort()).toEqual([...allowed].sort());
    });

    it.each([
      ['a word', 'abc'],
      ['a UUID with a suffix', '01936b2e-0000-7000-8000-000000000000x'],
      ['a UUID without dashes', '01936b2e000070008000000000000000'],
      ['a long id', 'a'.repeat(300)],
      ['an encoded slash', 'a%2Fb'],
      ['an encoded NUL', '%00'],
      ['a broken escape', '%ff'],
      ['a lone percent', '%'],
      ['SQL', "1'%20or%20'1'='1"],
    ])('treats a path id that is not a UUID (%s) as unknown: 404, never 500', async (_label, id) => {
      for (const request of [
        { method: 'GET' as const, url: `/api/conversations/${id}` },
        { method: 'POST' as const, url: `/api/conversations/${id}/messages`, payload: { message: 'hi' } },
      ]) {
        const response = await t.inject({ ...request, headers: bearer(created.access_token) });
        expect(response.statusCode, `${request.method} ${request.url}: ${response.body}`).toBe(404);
        expect(['conversation_not_found', 'not_found']).toContain(json(response).code);
        expectApiHeaders(response);
      }
    });

    it('accepts the conversation id in uppercase', async () => {
      const response = await readConversation(t, created.conversation_id.toUpperCase(), created.access_token);
      expect(response.statusCode, response.body).toBe(200);
    });
  });

  describe('headers, identifiers and times', () => {
    it('sets the API headers on successes, 304s and every kind of error', async () => {
      const responses = [
        await t.inject({ method: 'GET', url: '/api/health' }),
        await t.inject({ method: 'GET', url: '/api/agent-guide' }),
        await t.inject({ method: 'GET', url: '/openapi.json' }),
        await post('{"message":"headers"}', asJson),
        await readConversation(t, created.conversation_id, created.access_token),
        await post('nope', asJson),
        await post('{"message":""}', asJson),
        await t.inject({ method: 'GET', url: `/api/conversations/${created.conversation_id}` }),
        await t.inject({ method: 'DELETE', url: '/api/health' }),
        await t.inject({ method: 'GET', url: '/api/unknown' }),
      ];
      for (const response of responses) expectApiHeaders(response);
      const read = await readConversation(t, created.conversation_id, created.access_token);
      const notModified = await readConversation(t, created.conversation_id, created.access_token, { 'if-none-match': String(read.headers.etag) });
      expect(notModified.statusCode).toBe(304);
      expectApiHeaders(notModified);
    });

    it('answers lowercase UUIDv7 ids and ISO 8601 UTC timestamps with milliseconds', async () => {
      const receipt = await createConversation(t, { message: 'times' });
      expect(receipt.conversation_id).toMatch(UUID_V7);
      const read = json<{ conversation_id: string; created_at: string; updated_at: string; messages: Array<{ id: string; created_at: string }> }>(
        await readConversation(t, receipt.conversation_id, receipt.access_token),
      );
      expect(read.conversation_id).toBe(receipt.conversation_id);
      expect(read.created_at).toMatch(ISO_MILLIS);
      expect(read.updated_at).toMatch(ISO_MILLIS);
      expect(read.created_at).toBe(new Date(t.clock.now()).toISOString());
      for (const message of read.messages) {
        expect(message.id).toMatch(UUID_V7);
        expect(message.created_at).toMatch(ISO_MILLIS);
      }
      const replied = await t.inject({
        method: 'POST',
        url: `/api/conversations/${receipt.conversation_id}/messages`,
        headers: bearer(receipt.access_token),
        payload: { message: 'id?' },
      });
      expect(json<{ message_id: string }>(replied).message_id).toMatch(UUID_V7);
    });
  });
});

describe('absolute URLs', () => {
  it('builds read_url and reply_url from the request host when PUBLIC_URL is unset', async () => {
    const t = await startApp();
    try {
      const response = await t.inject({ method: 'POST', url: '/api/conversations', headers: { host: 'inbox.example:8443' }, payload: { message: 'hi' } });
      const receipt = json<Created>(response);
      expect(receipt.read_url).toBe(`http://inbox.example:8443/api/conversations/${receipt.conversation_id}`);
      expect(receipt.reply_url).toBe(`http://inbox.example:8443/api/conversations/${receipt.conversation_id}/messages`);
    } finally {
      await t.close();
    }
  });

  it('builds them from PUBLIC_URL when it is set, whatever the request host', async () => {
    const t = await startApp({ env: { PUBLIC_URL: 'https://parley.example/base/' } });
    try {
      const response = await t.inject({ method: 'POST', url: '/api/conversations', headers: { host: 'evil.example' }, payload: { message: 'hi' } });
      const receipt = json<Created>(response);
      expect(receipt.read_url).toBe(`https://parley.example/base/api/conversations/${receipt.conversation_id}`);
      expect(receipt.reply_url).toBe(`https://parley.example/base/api/conversations/${receipt.conversation_id}/messages`);
    } finally {
      await t.close();
    }
  });

  it('falls back to the address the request reached when an HTTP/1.0 request has no Host header', async () => {
    const t = await startApp();
    try {
      const port = Number(new URL(await t.app.listen({ host: '127.0.0.1', port: 0 })).port);
      const exchange = (request: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1', () => socket.write(request));
          let answer = '';
          socket.setTimeout(5_000, () => socket.destroy(new Error('no answer')));
          socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
          socket.on('end', () => resolve(answer));
          socket.on('error', reject);
        });
      const body = '{"message":"from an old client"}';
      const answer = await exchange(`POST /api/conversations HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      const receipt = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as Created;
      expect(receipt.read_url).toBe(`http://127.0.0.1:${port}/api/conversations/${receipt.conversation_id}`);
      const guide = await exchange('GET /api/agent-guide HTTP/1.0\r\n\r\n');
      expect(guide).toContain(`"openapi_url":"http://127.0.0.1:${port}/openapi.json"`);
    } finally {
      await t.close();
    }
  });
});
