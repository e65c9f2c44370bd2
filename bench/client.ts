/** The few API calls the benchmark makes to set up what it measures. */
import { sha256 } from '../src/tokens.ts';
import type { Endpoint } from './load.ts';

const SETUP_CONCURRENCY = 8;

export interface Reply {
  status: number;
  etag: string | null;
  body: Record<string, unknown> | undefined;
}

export async function call(base: string, method: string, url: string, options: { token?: string; body?: unknown } = {}): Promise<Reply> {
  const response = await fetch(`${base}${url}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  let body: Record<string, unknown> | undefined;
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    body = undefined;
  }
  return { status: response.status, etag: response.headers.get('etag'), body };
}

export interface Conversation {
  id: string;
  token: string;
}

export async function createConversation(base: string, message: string): Promise<Conversation> {
  const reply = await call(base, 'POST', '/api/conversations', { body: { message, name: 'Bench agent' } });
  if (reply.status !== 201) throw new Error(`conversation creation answered ${reply.status}: ${JSON.stringify(reply.body)}`);
  return { id: String(reply.body!.conversation_id), token: String(reply.body!.access_token) };
}

export async function createConversations(base: string, count: number): Promise<Conversation[]> {
  const created: Conversation[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: SETUP_CONCURRENCY }, async () => {
      while (next < count) {
        next += 1;
        created.push(await createConversation(base, `Benchmark conversation ${next}`));
      }
    }),
  );
  return created;
}

/** The message cap of the SQLite ceiling's conversations: Parley's default. */
export const CEILING_MAX_MESSAGES = 200;

/** The conversations the SQLite ceiling server creates for follow-ups, named by their index on both sides. */
export function ceilingConversation(index: number): Conversation {
  return { id: `00000000-0000-4000-8000-${index.toString(16).padStart(12, '0')}`, token: sha256(`ceiling-${index}`) };
}

export function ceilingConversations(count: number): Conversation[] {
  return Array.from({ length: count }, (_, index) => ceilingConversation(index));
}

export async function followUp(base: string, conversation: Conversation, index: number): Promise<void> {
  const reply = await call(base, 'POST', `/api/conversations/${conversation.id}/messages`, {
    token: conversation.token,
    body: { message: `Setup follow-up ${index}`, client_message_id: `setup-${index}-${conversation.id.slice(0, 8)}` },
  });
  if (reply.status !== 201) throw new Error(`follow-up answered ${reply.status}: ${JSON.stringify(reply.body)}`);
}

/**
 * Spreads follow-ups round-robin over the pool, one new client_message_id each, never sending a
 * conversation more than `perConversation`: requests past the pool's room are counted as overflow.
 */
export function writeRotation(pool: Conversation[], perConversation: number) {
  let sent = 0;
  let overflow = 0;
  const setupRequest: NonNullable<Endpoint['setupRequest']> = (request) => {
    const index = sent;
    sent += 1;
    if (index >= pool.length * perConversation) overflow += 1;
    const conversation = pool[index % pool.length]!;
    request.path = `/api/conversations/${conversation.id}/messages`;
    request.headers = { ...request.headers, authorization: `Bearer ${conversation.token}` };
    request.body = JSON.stringify({ message: `Benchmark follow-up ${index}.`, client_message_id: `bench-${index}` });
    return request;
  };
  return { setupRequest, overflow: () => overflow };
}
