import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { ERROR_CODES } from '../../src/http/errors.ts';
import type { AlertKind, Alerts } from '../../src/alerts/alerts.ts';
import { adminHeaders, bearer, type TestApp } from '../helpers.ts';

/** Operator actions through the operator routes, so counters and the visitor's ETag move as in use. */
export async function insertOperatorMessage(t: TestApp, conversationId: string, body: string): Promise<string> {
  const response = await t.inject({
    method: 'POST',
    url: `/api/admin/conversations/${conversationId}/messages`,
    headers: adminHeaders(),
    payload: { message: body },
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json().message_id as string;
}

/** The operator read: marks the visitor's messages seen. */
export async function markVisitorMessagesSeenByOperator(t: TestApp, conversationId: string): Promise<void> {
  const response = await t.inject({ method: 'GET', url: `/api/admin/conversations/${conversationId}`, headers: adminHeaders() });
  expect(response.statusCode, response.body).toBe(200);
}

export async function setStatus(t: TestApp, conversationId: string, status: 'open' | 'closed' | 'spam'): Promise<void> {
  const response = await t.inject({
    method: 'POST',
    url: `/api/admin/conversations/${conversationId}/status`,
    headers: adminHeaders(),
    payload: { status },
  });
  expect(response.statusCode, response.body).toBe(200);
}

export function readConversation(t: TestApp, conversationId: string, token: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return t.inject({ method: 'GET', url: `/api/conversations/${conversationId}`, headers: { ...bearer(token), ...headers } });
}

export function reply(
  t: TestApp,
  conversationId: string,
  token: string,
  payload: Record<string, unknown>,
  extra: { headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  return t.inject({
    method: 'POST',
    url: `/api/conversations/${conversationId}/messages`,
    headers: { ...bearer(token), ...extra.headers },
    payload,
    ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
  });
}

export function create(
  t: TestApp,
  payload: unknown,
  extra: { headers?: Record<string, string>; remoteAddress?: string } = {},
): Promise<LightMyRequestResponse> {
  return t.inject({
    method: 'POST',
    url: '/api/conversations',
    headers: extra.headers ?? {},
    payload: payload as Record<string, unknown>,
    ...(extra.remoteAddress ? { remoteAddress: extra.remoteAddress } : {}),
  });
}

export async function countRows(t: TestApp, table: 'conversations' | 'messages' | 'limit_counters'): Promise<number> {
  const row = await t.store.db
    .selectFrom(table)
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
export const ISO_MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** CONTRACT §1: every error is `{error, code, field?}` with the listed status, plus the API headers. */
export function expectError(response: LightMyRequestResponse, status: number, code: string, field?: string): void {
  expect(response.statusCode, response.body).toBe(status);
  const body = response.json() as Record<string, unknown>;
  expect(body.code).toBe(code);
  expect(ERROR_CODES).toContain(body.code);
  expect(typeof body.error).toBe('string');
  expect((body.error as string).length).toBeGreaterThan(0);
  expect(Object.keys(body).every((key) => ['error', 'code', 'field'].includes(key)), `unexpected keys in ${response.body}`).toBe(true);
  if (field === undefined) expect(body).not.toHaveProperty('field');
  else expect(body.field).toBe(field);
  expectApiHeaders(response);
}

export function expectApiHeaders(response: LightMyRequestResponse): void {
  expect(response.headers['cache-control']).toBe('no-store');
  expect(response.headers['x-content-type-options']).toBe('nosniff');
  expect(response.headers['referrer-policy']).toBe('no-referrer');
}

/** An alert channel that records the kinds it was asked to send. */
export function recordingAlerts(): Alerts & { sent: AlertKind[] } {
  const sent: AlertKind[] = [];
  return {
    configured: true,
    sent,
    notify: (event) => void sent.push(event.kind),
    sendTest: async () => {
      sent.push('test');
      return { sent: true };
    },
    idle: alertsFlushed,
    close: alertsFlushed,
  };
}

/** Alerts leave in a setImmediate queued by the response's handler: one more turn runs them. */
export async function alertsFlushed(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}
