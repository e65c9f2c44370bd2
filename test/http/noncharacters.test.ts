import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, expectError, startApp, type TestApp } from '../helpers.ts';
import { RAISED_LIMITS } from '../reliability/support.ts';

/**
 * Issue 29 item 6: every text field refuses the Unicode non-characters (U+FDD0 to U+FDEF and the last
 * two code points of every plane) as it refuses control characters: a title with U+FFFE made both Atom
 * feeds ill-formed XML for every reader.
 */
const NONCHARACTERS = ['\uFFFE', '\uFFFF', '\uFDD0', '\uFDEF', '\u{1FFFE}', '\u{10FFFF}'];
/** Neighbours of the non-characters that are ordinary characters. */
const ACCEPTED = ['\uFDCF', '\uFDF0', '\uFFFD', '\u{1FFFD}', '\u{10000}'];

describe('text fields', () => {
  let t: TestApp;
  let agentToken: string;
  let topicId: string;
  let threadToken: string;
  let conversationToken: string;
  let conversationId: string;

  beforeAll(async () => {
    t = await startApp({ env: RAISED_LIMITS });
    const peer = await t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Field tester' } });
    agentToken = peer.json<{ access_token: string }>().access_token;
    const topic = await t.inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(agentToken), payload: { title: 'Host', message: 'first' } });
    ({ topic_id: topicId, thread_access_token: threadToken } = topic.json<{ topic_id: string; thread_access_token: string }>());
    const conversation = await createConversation(t);
    conversationToken = conversation.access_token;
    conversationId = conversation.conversation_id;
  });
  afterAll(() => t.close());

  /** Text fields of each kind (one line, several lines, filters), each with a request that carries `value` in it. */
  const fields: Array<{ field: string; send: (value: string) => ReturnType<TestApp['inject']> }> = [
    { field: 'name', send: (value) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'hi', name: value } }) },
    { field: 'message', send: (value) => t.inject({ method: 'POST', url: '/api/conversations', payload: { message: value } }) },
    { field: 'display_name', send: (value) => t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: value } }) },
    { field: 'description', send: (value) => t.inject({ method: 'POST', url: '/api/peers', payload: { display_name: 'Described', description: value } }) },
    { field: 'title', send: (value) => t.inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(agentToken), payload: { title: value, message: 'first' } }) },
    { field: 'summary', send: (value) => t.inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(agentToken), payload: { title: 'Summarised', summary: value, message: 'first' } }) },
    { field: 'category', send: (value) => t.inject({ method: 'POST', url: '/api/forum/topics', headers: bearer(agentToken), payload: { title: 'Filed', category: value, message: 'first' } }) },
    { field: 'message', send: (value) => t.inject({ method: 'POST', url: `/api/forum/topics/${topicId}/replies`, headers: bearer(threadToken), payload: { message: value } }) },
    { field: 'message', send: (value) => t.inject({ method: 'POST', url: `/api/conversations/${conversationId}/messages`, headers: bearer(conversationToken), payload: { message: value } }) },
    { field: 'title', send: (value) => t.inject({ method: 'POST', url: '/api/admin/forum/announcements', headers: adminHeaders(), payload: { title: value, message: 'news' } }) },
  ];

  it('refuse non-characters with 400 invalid_request naming the field', async () => {
    for (const { field, send } of fields) {
      for (const character of NONCHARACTERS) {
        const response = await send(`a${character}b`);
        const label = `${field} with U+${character.codePointAt(0)!.toString(16).toUpperCase()}: ${response.body}`;
        expect(response.statusCode, label).toBe(400);
        expectError(response, 400, 'invalid_request', field);
      }
    }
  });

  it('accept the characters beside them', async () => {
    for (const [index, { field, send }] of fields.entries()) {
      if (field === 'category') continue;
      for (const character of ACCEPTED) {
        const response = await send(`a${character}b ${index}`);
        expect(response.statusCode, `${field} with U+${character.codePointAt(0)!.toString(16)}: ${response.body}`).toBeLessThan(300);
      }
    }
  });
});
