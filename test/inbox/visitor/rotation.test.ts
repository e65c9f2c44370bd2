import { describe, expect, it } from 'vitest';
import { adminHeaders, bearer, createConversation, expectError, hexToken, json, sharedAppWithFreshLimits } from '../../helpers.ts';

const t = sharedAppWithFreshLimits();

const rotate = (id: string, token: string, body?: Record<string, unknown>) =>
  t().inject({ method: 'POST', url: `/api/conversations/${id}/token`, headers: bearer(token), ...(body === undefined ? {} : { payload: body }) });
const read = (id: string, token: string) => t().inject({ method: 'GET', url: `/api/conversations/${id}`, headers: bearer(token) });
const followUp = (id: string, token: string) => t().inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(token), payload: { message: 'More' } });
const revoke = (id: string) => t().inject({ method: 'POST', url: `/api/admin/conversations/${id}/token/revoke`, headers: adminHeaders() });

describe('conversation token rotation', () => {
  it('hands out a new server-made token once; the old one is refused at once for reads and follow-ups', async () => {
    const created = await createConversation(t());
    // A follow-up first, so the old token's hash is cached by the write path.
    expect((await followUp(created.conversation_id, created.access_token)).statusCode).toBe(201);
    const rotated = await rotate(created.conversation_id, created.access_token);
    expect(rotated.statusCode, rotated.body).toBe(201);
    const receipt = json<{ conversation_id: string; access_token: string; duplicate: boolean }>(rotated);
    expect(receipt).toMatchObject({ conversation_id: created.conversation_id, duplicate: false });
    expect(receipt.access_token).toMatch(/^[0-9a-f]{64}$/);
    expect(receipt.access_token).not.toBe(created.access_token);
    expect(t().logs.join('')).not.toContain(receipt.access_token);

    expectError(await read(created.conversation_id, created.access_token), 404, 'conversation_not_found');
    expectError(await followUp(created.conversation_id, created.access_token), 404, 'conversation_not_found');
    expectError(await rotate(created.conversation_id, created.access_token), 404, 'conversation_not_found');
    const current = await read(created.conversation_id, receipt.access_token);
    expect(current.statusCode).toBe(200);
    expect(json<{ messages: unknown[] }>(current).messages).toHaveLength(2);
    expect((await followUp(created.conversation_id, receipt.access_token)).statusCode).toBe(201);
  });

  it('is idempotent on retry with a client-made token, and refuses another request under the old token', async () => {
    const created = await createConversation(t());
    const next = hexToken('ab');
    const first = await rotate(created.conversation_id, created.access_token, { client_access_token: next });
    expect(first.statusCode, first.body).toBe(201);
    const again = await rotate(created.conversation_id, created.access_token, { client_access_token: next });
    expect(again.statusCode, again.body).toBe(200);
    expect(json(again)).toEqual({ conversation_id: created.conversation_id, access_token: next, duplicate: true });
    expectError(await rotate(created.conversation_id, created.access_token, { client_access_token: hexToken('cd') }), 404, 'conversation_not_found');
    expectError(await rotate(created.conversation_id, next, { client_access_token: next }), 400, 'invalid_request', 'client_access_token');
    expect((await read(created.conversation_id, next)).statusCode).toBe(200);
  });

  it('refuses a client token another conversation holds, and answers 401 without a token', async () => {
    const one = await createConversation(t());
    const other = await createConversation(t(), { message: 'Another', client_access_token: hexToken('ef') });
    expectError(await rotate(one.conversation_id, one.access_token, { client_access_token: hexToken('ef') }), 409, 'client_token_conflict');
    expect((await read(one.conversation_id, one.access_token)).statusCode).toBe(200);
    expect((await read(other.conversation_id, hexToken('ef'))).statusCode).toBe(200);
    expectError(await t().inject({ method: 'POST', url: `/api/conversations/${one.conversation_id}/token` }), 401, 'token_required');
  });
});

describe('operator token revocation', () => {
  it('tells the owner its token was revoked on its next read, follow-up or rotation; revoking again is a duplicate', async () => {
    const created = await createConversation(t());
    expect((await followUp(created.conversation_id, created.access_token)).statusCode).toBe(201);
    const revoked = await revoke(created.conversation_id);
    expect(revoked.statusCode, revoked.body).toBe(200);
    expect(json(revoked)).toEqual({ ok: true, conversation_id: created.conversation_id, duplicate: false });
    expectError(await read(created.conversation_id, created.access_token), 401, 'token_revoked');
    expectError(await followUp(created.conversation_id, created.access_token), 401, 'token_revoked');
    expectError(await rotate(created.conversation_id, created.access_token), 401, 'token_revoked');
    expect(json(await revoke(created.conversation_id))).toMatchObject({ duplicate: true });
    // Someone without the token still learns nothing.
    expectError(await read(created.conversation_id, hexToken('99')), 404, 'conversation_not_found');
    expectError(await revoke('01900000-0000-7000-8000-00000000abcd'), 404, 'conversation_not_found');
    // The operator still reads it.
    expect((await t().inject({ method: 'GET', url: `/api/admin/conversations/${created.conversation_id}`, headers: adminHeaders() })).statusCode).toBe(200);
  });
});
