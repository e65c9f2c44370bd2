import type { ErrorCode } from '../../src/http/errors.ts';

/**
 * The authorization matrix (CONTRACT §2): every route × every kind of credential, and the exact
 * answer each cell must get. authorization.test.ts runs it on fresh fixtures per route.
 *
 * Rules, as the contract decides them:
 * - a token bound to the resource in the path (conversation token, thread token): 401 when absent
 *   or not a Bearer header, 404 when wrong, revoked or belonging to another resource;
 * - a token not bound to a path (administrator, peer-agent): 401 when absent, wrong or revoked;
 * - public routes ignore whatever credential comes with the request.
 */
export const CREDENTIALS = [
  'none',
  'malformed',
  'wrong',
  'conversation',
  'other_conversation',
  'deleted_conversation',
  'agent',
  'revoked_agent',
  'thread',
  'other_topic_thread',
  'revoked_thread',
  'admin',
] as const;
export type Credential = (typeof CREDENTIALS)[number];

/** What a route needs, which decides every cell but the one holding the right credential. */
export type Guard = 'public' | 'conversation' | 'admin' | 'agent' | 'thread' | 'unlisted_topic';

export interface Route {
  method: 'GET' | 'POST' | 'DELETE';
  /** `:conversation`, `:topic`, `:unlisted`, `:joinable`, `:agent`, `:message` are fixture ids. */
  path: string;
  body?: Record<string, unknown>;
  guard: Guard;
  /** The answer of the credential this route is meant for (for public routes, of every credential). */
  success: number;
  /** Cells the contract decides otherwise than the guard's rule, with the reason. */
  exceptions?: Partial<Record<Credential, Expected>>;
  /** An event stream: it never ends, so a 200 is read up to its headers only. */
  stream?: true;
}

export const ROUTES: Route[] = [
  { method: 'GET', path: '/api/health', guard: 'public', success: 200 },
  { method: 'GET', path: '/api/agent-guide', guard: 'public', success: 200 },
  { method: 'POST', path: '/api/conversations', body: { message: 'matrix' }, guard: 'public', success: 201 },
  { method: 'GET', path: '/api/conversations/:conversation', guard: 'conversation', success: 200 },
  { method: 'POST', path: '/api/conversations/:conversation/messages', body: { message: 'matrix' }, guard: 'conversation', success: 201 },
  { method: 'GET', path: '/api/admin/conversations', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/conversations/:conversation', guard: 'admin', success: 200 },
  { method: 'POST', path: '/api/admin/conversations/:conversation/messages', body: { message: 'matrix' }, guard: 'admin', success: 201 },
  { method: 'POST', path: '/api/admin/conversations/:conversation/status', body: { status: 'closed' }, guard: 'admin', success: 200 },
  { method: 'POST', path: '/api/admin/conversations/:conversation/review', body: { label: 'other', note: '' }, guard: 'admin', success: 200 },
  { method: 'DELETE', path: '/api/admin/conversations/:conversation', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/review-labels', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/overview', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/notifications', guard: 'admin', success: 200 },
  // No alert channel is configured in the matrix: the documented answer is 503 not configured.
  { method: 'POST', path: '/api/admin/notifications/test', guard: 'admin', success: 503 },
  { method: 'GET', path: '/api/forum', guard: 'public', success: 200 },
  { method: 'GET', path: '/api/forum/categories', guard: 'public', success: 200 },
  { method: 'GET', path: '/api/forum/topics', guard: 'public', success: 200 },
  { method: 'GET', path: '/api/forum/topics/:topic', guard: 'public', success: 200 },
  { method: 'GET', path: '/api/forum/topics/:unlisted', guard: 'unlisted_topic', success: 200 },
  { method: 'POST', path: '/api/peers', body: { display_name: 'Matrix agent' }, guard: 'public', success: 201 },
  { method: 'POST', path: '/api/forum/topics', body: { title: 'Matrix topic', message: 'matrix' }, guard: 'agent', success: 201 },
  { method: 'POST', path: '/api/forum/topics/:joinable/join', guard: 'agent', success: 201 },
  { method: 'POST', path: '/api/forum/topics/:topic/close', guard: 'agent', success: 200 },
  // CONTRACT §6.1: repeating a revocation is 200 with duplicate: true.
  { method: 'POST', path: '/api/peers/revoke', guard: 'agent', success: 200, exceptions: { revoked_agent: { status: 200 } } },
  { method: 'POST', path: '/api/forum/topics/:topic/replies', body: { message: 'matrix' }, guard: 'thread', success: 201 },
  { method: 'GET', path: '/api/forum/topics/:topic/owner', guard: 'thread', success: 200 },
  { method: 'POST', path: '/api/forum/topics/:topic/owner', body: { message: 'matrix' }, guard: 'thread', success: 201 },
  { method: 'POST', path: '/api/forum/topics/:topic/leave', guard: 'thread', success: 200 },
  { method: 'POST', path: '/api/admin/peers/invitations', guard: 'admin', success: 201 },
  { method: 'POST', path: '/api/admin/peers/:agent/revoke', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/forum/topics', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/forum/topics/:unlisted', guard: 'admin', success: 200 },
  { method: 'POST', path: '/api/admin/forum/announcements', body: { title: 'Matrix', summary: 'matrix', message: 'matrix' }, guard: 'admin', success: 201 },
  { method: 'POST', path: '/api/admin/forum/topics/:topic/messages', body: { message: 'matrix' }, guard: 'admin', success: 201 },
  { method: 'POST', path: '/api/admin/forum/topics/:topic/status', body: { status: 'closed' }, guard: 'admin', success: 200 },
  { method: 'POST', path: '/api/admin/forum/messages/:message/hide', body: { hidden: true }, guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/forum/bridges', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/forum/bridges/:topic/:agent', guard: 'admin', success: 200 },
  { method: 'POST', path: '/api/admin/forum/bridges/:topic/:agent/messages', body: { message: 'matrix' }, guard: 'admin', success: 201 },
  { method: 'GET', path: '/api/admin/events', guard: 'admin', success: 200, stream: true },
  // The reference's peer-thread family (CONTRACT §10 §3): the same guards as the forum routes it aliases.
  { method: 'GET', path: '/api/peer-threads', guard: 'public', success: 200 },
  { method: 'POST', path: '/api/peer-threads', body: { title: 'Matrix thread' }, guard: 'agent', success: 201 },
  { method: 'POST', path: '/api/peer-threads/:joinable/join', guard: 'agent', success: 201 },
  { method: 'POST', path: '/api/peer-threads/:topic/close', guard: 'agent', success: 200 },
  { method: 'GET', path: '/api/peer-threads/:topic', guard: 'thread', success: 200 },
  { method: 'POST', path: '/api/peer-threads/:topic/messages', body: { message: 'matrix' }, guard: 'thread', success: 201 },
  { method: 'GET', path: '/api/peer-threads/:topic/owner', guard: 'thread', success: 200 },
  { method: 'POST', path: '/api/peer-threads/:topic/owner', body: { message: 'matrix' }, guard: 'thread', success: 201 },
  { method: 'POST', path: '/api/peer-threads/:topic/leave', guard: 'thread', success: 200 },
  { method: 'GET', path: '/api/admin/peer-owner-bridges', guard: 'admin', success: 200 },
  { method: 'GET', path: '/api/admin/peer-owner-bridges/:topic/:agent', guard: 'admin', success: 200 },
  { method: 'POST', path: '/api/admin/peer-owner-bridges/:topic/:agent/messages', body: { message: 'matrix' }, guard: 'admin', success: 201 },
  { method: 'POST', path: '/api/admin/peer-threads/:topic/close', guard: 'admin', success: 200 },
  { method: 'DELETE', path: '/api/admin/peer-smoke-tests', guard: 'admin', success: 200 },
  // The reference's peer directory, presence, guides and overview (CONTRACT §10 §3).
  { method: 'GET', path: '/api/peer-guide', guard: 'public', success: 200 },
  { method: 'GET', path: '/peer-guide.json', guard: 'public', success: 200 },
  { method: 'GET', path: '/agent-instructions.md', guard: 'public', success: 200 },
  { method: 'GET', path: '/api/peers', guard: 'public', success: 200 },
  { method: 'POST', path: '/api/peers/presence', body: {}, guard: 'agent', success: 200 },
  { method: 'GET', path: '/api/admin/peer-overview', guard: 'admin', success: 200 },
];

export interface Expected {
  status: number;
  code?: ErrorCode;
}

const ABSENT: Credential[] = ['none', 'malformed'];

/** The credential each guard is meant for; `agent` is the creator of `:topic`, `thread` its token there. */
const RIGHT: Record<Exclude<Guard, 'public'>, Credential> = {
  conversation: 'conversation',
  admin: 'admin',
  agent: 'agent',
  thread: 'thread',
  unlisted_topic: 'other_topic_thread',
};

/** The one cell of the matrix: what `route` must answer to `credential`. */
export function expected(route: Route, credential: Credential): Expected {
  const exception = route.exceptions?.[credential];
  if (exception) return exception;
  if (route.guard === 'public' || RIGHT[route.guard] === credential) return { status: route.success };
  switch (route.guard) {
    case 'conversation':
      return ABSENT.includes(credential) ? { status: 401, code: 'token_required' } : { status: 404, code: 'conversation_not_found' };
    case 'thread':
      return ABSENT.includes(credential) ? { status: 401, code: 'thread_token_required' } : { status: 404, code: 'topic_not_found' };
    case 'unlisted_topic':
      // An unlisted topic is indistinguishable from an unknown one without a member's thread token.
      return { status: 404, code: 'topic_not_found' };
    case 'admin':
      return { status: 401, code: 'admin_token_required' };
    case 'agent':
      return { status: 401, code: 'agent_token_required' };
  }
}

/**
 * The same path written as the router still reads it (issue 10 item 8): every check keyed on the
 * path must judge these as the route they reach.
 */
export function disguisedPaths(path: string): string[] {
  return [
    path.replace(/^\/api\//, '/%61pi/'),
    path.replace(/^\/api\/(\w)/, (_match, letter: string) => `/api/%${letter.charCodeAt(0).toString(16).toUpperCase()}`),
  ];
}
