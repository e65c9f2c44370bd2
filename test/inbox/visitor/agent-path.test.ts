import { describe, expect, it } from 'vitest';
import { bearer, expectError, sharedAppWithFreshLimits } from '../../helpers.ts';

/* The small things an agent trips over on its way: the receipt's ETag, an unquoted tag, a rule named in its error. */

const app = sharedAppWithFreshLimits();

async function created() {
  const response = await app().inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Hello operator' } });
  expect(response.statusCode).toBe(201);
  return { response, body: response.json() as { conversation_id: string; access_token: string } };
}

describe('the agent\'s path', () => {
  it('the creation receipt carries the ETag of the conversation as created: a wait can start from it', async () => {
    const { response, body } = await created();
    const tag = response.headers.etag as string;
    expect(tag).toBe('"1"');
    const read = await app().inject({ method: 'GET', url: `/api/conversations/${body.conversation_id}`, headers: { ...bearer(body.access_token), 'if-none-match': tag } });
    expect(read.statusCode).toBe(304);
  });

  it('takes an If-None-Match tag sent without its quotes', async () => {
    const { body } = await created();
    const read = await app().inject({ method: 'GET', url: `/api/conversations/${body.conversation_id}`, headers: { ...bearer(body.access_token), 'if-none-match': '1' } });
    expect(read.statusCode).toBe(304);
  });

  it('names the client_message_id rule when an id is too short', async () => {
    const { body } = await created();
    const response = await app().inject({
      method: 'POST',
      url: `/api/conversations/${body.conversation_id}/messages`,
      headers: bearer(body.access_token),
      payload: { message: 'More', client_message_id: 'short' },
    });
    expectError(response, 400, 'invalid_request', 'client_message_id');
    expect(response.json().error).toBe('The field "client_message_id" must be 8 to 80 characters of A-Z, a-z, 0-9, "_" and "-" (^[a-zA-Z0-9_-]{8,80}$).');
  });

  it('names a length rule', async () => {
    const response = await app().inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Hi', name: 'n'.repeat(61) } });
    expectError(response, 400, 'invalid_request', 'name');
    expect(response.json().error).toBe('The field "name" must be at most 60 characters long.');
  });
});
