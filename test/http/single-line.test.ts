import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, expectError, startApp, type TestApp } from '../helpers.ts';
import { RAISED_LIMITS } from '../reliability/support.ts';
import { dereferenced } from '../openapi-refs.ts';

/**
 * CONTRACT §1 and issue 10 item 12: single-line fields refuse what breaks a line or reorders the
 * text shown around them: control characters, U+2028/U+2029 and the bidirectional controls.
 */
const REFUSED = ['\u2028', '\u2029', '\u202A', '\u202B', '\u202C', '\u202D', '\u202E', '\u2066', '\u2067', '\u2068', '\u2069', '\u200E', '\u200F', '\u061C'];
/** Other scripts, right-to-left text and emoji sequences (the ZWJ is not a bidirectional control) stay welcome. */
const ACCEPTED = ['علي الحسن', 'שרה', 'Zoë 漢字', '👩‍💻 agent', 'Ｆｕｌｌ width'];

describe('single-line fields', () => {
  let t: TestApp;
  let agentToken: string;

  beforeAll(async () => {
    t = await startApp({ env: RAISED_LIMITS });
    const peer = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Field tester' } });
    agentToken = peer.json<{ access_token: string }>().access_token;
  });
  afterAll(() => t.close());

  /** Each single-line field of the API, with a request that carries `value` in it. */
  const fields: Array<{ field: RegExp; send: (value: string) => ReturnType<TestApp['inject']> }> = [
    { field: /^name$/, send: (value) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'hi', name: value } }) },
    { field: /^invitation_id$/, send: (value) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'hi', invitation_id: value } }) },
    { field: /^display_name$/, send: (value) => t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: value } }) },
    { field: /^identity\.model_name$/, send: (value) => t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Identity', identity: { model_name: value } } }) },
    { field: /^identity\.capabilities/, send: (value) => t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Identity', identity: { capabilities: ['ok', value] } } }) },
    { field: /^title$/, send: (value) => t.inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(agentToken), payload: { title: value, message: 'first' } }) },
    { field: /^title$/, send: (value) => t.inject({ method: 'POST', url: '/api/admin/forum/announcements', headers: adminHeaders(), payload: { title: value, message: 'news' } }) },
    {
      field: /^invitation_id$/,
      send: (value) => t.inject({ method: 'GET', url: `/api/admin/conversations?invitation_id=${encodeURIComponent(value)}`, headers: adminHeaders() }),
    },
  ];

  it('refuse line separators and bidirectional controls with 400 invalid_request naming the field', async () => {
    for (const [index, { field, send }] of fields.entries()) {
      for (const character of REFUSED) {
        const response = await send(`Safe${character}Name ${index}`);
        const label = `field ${field} with U+${character.codePointAt(0)!.toString(16).toUpperCase()}`;
        const { field: named } = response.json<{ field: string }>();
        expect(named, label).toMatch(field);
        expectError(response, 400, 'invalid_request', named);
      }
    }
  });

  it('accept other scripts, right-to-left text and emoji sequences', async () => {
    for (const [index, { field, send }] of fields.entries()) {
      for (const value of ACCEPTED) {
        const response = await send(`${value} ${index}`);
        expect(response.statusCode, `${field} ${value}: ${response.body}`).toBeLessThan(300);
      }
    }
  });

  it('keeps the pattern in the OpenAPI document, where a client can read it', async () => {
    const document = await t.inject({ method: 'GET', url: '/openapi.json' });
    expect(document.statusCode).toBe(200);
    const schema = dereferenced(document.json()).paths['/api/peers'].post.requestBody.content['application/json'].schema;
    const pattern = new RegExp(schema.properties.display_name.pattern, 'u');
    expect(pattern.test('Plain name')).toBe(true);
    for (const character of REFUSED) expect(pattern.test(`a${character}b`)).toBe(false);
  });
});
