import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import { adminHeaders, bearer, json, sharedAppWithEmptyTables, startApp, type TestApp, type TestAppOptions } from '../helpers.ts';

/** A message as both sides read it. */
export interface Message {
  id: string;
  role: 'visitor' | 'admin';
  body: string;
  created_at: string;
  seen_at: string | null;
}

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

/** Limits high enough that tests creating many conversations are never refused. */
export const ROOMY_LIMITS = {
  LIMIT_CONVERSATION_SOURCE: '100000/1h',
  LIMIT_CONVERSATION_GLOBAL: '100000/1h',
  LIMIT_FOLLOWUP_SOURCE: '100000/1h',
};

export function startRoomyApp(options: TestAppOptions = {}): Promise<TestApp> {
  return startApp({ ...options, env: { ...ROOMY_LIMITS, ...options.env } });
}

/** One app with roomy limits for the tests of a file or describe block, its tables emptied before each test. */
export function sharedRoomyApp(): () => TestApp {
  return sharedAppWithEmptyTables({ env: ROOMY_LIMITS });
}

export function admin(
  t: TestApp,
  method: 'GET' | 'POST' | 'DELETE',
  url: string,
  payload?: Record<string, unknown>,
  headers: Record<string, string> = adminHeaders(),
): Promise<LightMyRequestResponse> {
  return t.inject({ method, url, headers, ...(payload === undefined ? {} : { payload }) });
}

/**
 * Two answers to the same admin GET, the second from the route's cache of encoded bodies: both 200
 * JSON with a Content-Length equal to their bytes, and the same bytes.
 */
export async function expectCachedJsonAgain(t: TestApp, url: string): Promise<LightMyRequestResponse> {
  const first = await admin(t, 'GET', url);
  const again = await admin(t, 'GET', url);
  for (const response of [first, again]) {
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(Number(response.headers['content-length'])).toBe(response.rawPayload.length);
  }
  expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
  return again;
}

export interface ListItem {
  id: string;
  name: string;
  invitation_id: string | null;
  status: string;
  review_label: string;
  created_at: string;
  updated_at: string;
  last_message_at: string;
  message_count: number;
  unread_count: number;
  last_message_preview: string;
  last_message_role: 'visitor' | 'admin';
  snoozed_until: string | null;
}

export interface ListPage {
  conversations: ListItem[];
  next_cursor: string | null;
}

export async function listPage(t: TestApp, query: Record<string, string | number | boolean> = {}): Promise<ListPage> {
  const search = new URLSearchParams(Object.entries(query).map(([key, value]) => [key, String(value)]));
  const response = await admin(t, 'GET', `/api/admin/conversations?${search}`);
  if (response.statusCode !== 200) throw new Error(`list answered ${response.statusCode}: ${response.body}`);
  return json<ListPage>(response);
}

/** Every conversation matching `query`, page after page (bounded). */
export async function listAll(t: TestApp, query: Record<string, string | number | boolean> = {}, limit = 500): Promise<ListItem[]> {
  const items: ListItem[] = [];
  let cursor: string | null = null;
  for (let pages = 0; pages < 1000; pages += 1) {
    const page: ListPage = await listPage(t, { ...query, limit, ...(cursor ? { cursor } : {}) });
    items.push(...page.conversations);
    cursor = page.next_cursor;
    if (cursor === null) return items;
  }
  throw new Error('the list did not end within 1000 pages');
}

export interface Overview {
  totals: Record<'total_conversations' | 'unread_threads' | 'open' | 'closed' | 'spam' | 'spam_threads' | 'new_last_24h' | 'active_blocks', number>;
  labels: { label: string; count: number }[];
  invitation_ids: { id: string; count: number }[];
  note: string;
}

export async function overview(t: TestApp): Promise<Overview> {
  const response = await admin(t, 'GET', '/api/admin/overview');
  if (response.statusCode !== 200) throw new Error(`overview answered ${response.statusCode}`);
  return json<Overview>(response);
}

export const MISSING_ID = '01900000-0000-7000-8000-000000000000';
