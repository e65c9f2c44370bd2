import { TaskState, type StreamResponse, type TaskStatusUpdateEvent } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { A2A_FACTS } from '../../src/http/agent-facts.ts';
import { adminHeaders, countRows, hexToken, recordingAlerts, type TestApp } from '../helpers.ts';
import { a2aService, asTask, bearerHeader, firstContactMetadata, textOf, tokenOf, userMessage } from './support.ts';

/*
 * A2A 1.0 driven by @a2a-js/sdk's own client over a real listening server, on both stores: the
 * card, the round trip (send, get, the operator's reply, follow-up, close), retries by messageId,
 * streaming from the live hub, and the REST rules (limits, tokens, errors).
 */

let t: TestApp;
let base: string;
let client: Client;
const alerts = recordingAlerts();

beforeAll(async () => {
  ({ t, base, client } = await a2aService({ alerts, env: { LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h' } }));
});
afterAll(() => t.close());
beforeEach(async () => {
  await t.store.db.deleteFrom('limit_counters').execute();
});

const admin = (conversationId: string, path: string, payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: `/api/admin/conversations/${conversationId}${path}`, headers: adminHeaders(), payload });

let sequence = 0;
const messageId = () => `a2a-test-${String(++sequence).padStart(4, '0')}-${Date.now()}`;

async function start(text = 'Hello operator, my user asked me to write.') {
  const task = asTask(await client.sendMessage(userMessage(messageId(), text)));
  return { task, token: tokenOf(task)!.access_token! };
}

describe('the agent card', () => {
  it('is an A2A 1.0 card the SDK client reads, with the 0.3 fields old clients read', async () => {
    const card = (await (await fetch(`${base}/.well-known/agent-card.json`)).json()) as {
      supportedInterfaces: unknown;
      capabilities: { streaming: boolean; extensions: Array<{ uri: string }> };
      securitySchemes: Record<string, { httpAuthSecurityScheme: { scheme: string } }>;
      skills: Array<{ id: string }>;
      url: string;
    };
    expect(card.supportedInterfaces).toEqual([
      { url: `${base}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
      { url: `${base}/api/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
    ]);
    expect(card.capabilities.streaming).toBe(true);
    expect(card.capabilities.extensions[0]!.uri).toBe(A2A_FACTS.extension_uri);
    expect(card.securitySchemes.conversationBearer!.httpAuthSecurityScheme.scheme).toBe('bearer');
    expect(card.skills.map((skill) => skill.id)).toEqual(['first-contact', 'forum']);
    expect(card).toMatchObject({ url: `${base}/api/a2a`, protocolVersion: '0.3', preferredTransport: 'JSONRPC' });
    expect(client.protocolVersion).toBe('1.0');
    // The card's url answers: it is the endpoint, not a 404.
    const answer = await fetch(card.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'x' } }) });
    expect(answer.status).toBe(200);
  });
});

describe('the round trip', () => {
  it('send, get, the operator replies, get (INPUT_REQUIRED), follow-up, close (COMPLETED), retry of the same messageId', async () => {
    const firstId = messageId();
    const sent = asTask(await client.sendMessage(userMessage(firstId, 'Hello operator, my user asked me to write.', { metadata: firstContactMetadata({ name: 'A2A Agent' }) })));
    expect(sent.status!.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(sent.contextId).toBe(sent.id);
    const token = tokenOf(sent)!;
    expect(token.access_token).toMatch(/^[0-9a-f]{64}$/);
    const auth = bearerHeader(token.access_token!);
    await alerts.idle();
    expect(alerts.sent).toContain('new');

    // The task is the conversation: REST reads it with the same token.
    const rest = await t.inject({ method: 'GET', url: `/api/conversations/${sent.id}`, headers: { authorization: `Bearer ${token.access_token}` } });
    expect(rest.json()).toMatchObject({ name: 'A2A Agent', status: 'open' });

    const got = await client.getTask({ id: sent.id, tenant: '' }, auth);
    expect(got.status!.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(got.history.map(textOf)).toEqual(['Hello operator, my user asked me to write.']);
    expect(tokenOf(got)).toBeUndefined();

    expect((await admin(sent.id, '/messages', { message: 'Hello, I read you. What do you need?' })).statusCode).toBe(201);
    const answered = await client.getTask({ id: sent.id, tenant: '' }, auth);
    expect(answered.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(answered.status!.message)).toBe('Hello, I read you. What do you need?');
    // Reading marks the operator's message seen, as a REST read does.
    const seen = await t.inject({ method: 'GET', url: `/api/admin/conversations/${sent.id}`, headers: adminHeaders() });
    expect(seen.json().messages.at(-1).seen_at).not.toBeNull();

    const followUpId = messageId();
    const followed = asTask(await client.sendMessage(userMessage(followUpId, 'A price list, please.', { taskId: sent.id }), auth));
    expect(followed.status!.state).toBe(TaskState.TASK_STATE_WORKING);
    expect(followed.history.map(textOf)).toEqual(['Hello operator, my user asked me to write.', 'Hello, I read you. What do you need?', 'A price list, please.']);
    await alerts.idle();
    expect(alerts.sent).toContain('reply');
    // The same follow-up again writes nothing.
    const again = asTask(await client.sendMessage(userMessage(followUpId, 'A price list, please.', { taskId: sent.id }), auth));
    expect(again.history).toHaveLength(3);

    expect((await admin(sent.id, '/status', { status: 'closed' })).statusCode).toBe(200);
    const closed = await client.getTask({ id: sent.id, tenant: '' }, auth);
    expect(closed.status!.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(await refusal(client.sendMessage(userMessage(messageId(), 'Anyone there?', { taskId: sent.id }), auth))).toMatchObject({ name: 'UnsupportedOperationError', code: 'conversation_closed' });

    // The first message again: the same task, nothing created twice, and not the token.
    const conversations = await countRows(t, 'conversations');
    const retried = asTask(await client.sendMessage(userMessage(firstId, 'Hello operator, my user asked me to write.', { metadata: firstContactMetadata({ name: 'A2A Agent' }) })));
    expect(retried.id).toBe(sent.id);
    expect(tokenOf(retried)!.access_token).toBeNull();
    expect(retried.history).toEqual([]);
    expect(await countRows(t, 'conversations')).toBe(conversations);
    // The same messageId with another text is another message: refused.
    expect(await refusal(client.sendMessage(userMessage(firstId, 'Something else entirely.')))).toMatchObject({ name: 'RequestMalformedError', code: 'client_message_id_conflict' });
  });

  it('spam is REJECTED', async () => {
    const { task, token } = await start();
    await admin(task.id, '/status', { status: 'spam' });
    expect((await client.getTask({ id: task.id, tenant: '' }, bearerHeader(token))).status!.state).toBe(TaskState.TASK_STATE_REJECTED);
  });

  it('a client token makes the first message retry-safe with the token: the retry carries it again', async () => {
    const clientToken = hexToken('c7');
    const request = userMessage(messageId(), 'Hello with my own token.', { metadata: firstContactMetadata({ client_access_token: clientToken }) });
    const first = asTask(await client.sendMessage(request));
    const second = asTask(await client.sendMessage(request));
    expect(second.id).toBe(first.id);
    expect(tokenOf(second)!.access_token).toBe(clientToken);
    expect(second.history.map(textOf)).toEqual(['Hello with my own token.']);
  });
});

describe('tokens, lists and refusals', () => {
  it('GetTask needs the token; ListTasks lists nothing without one and the token\'s task with it', async () => {
    const { task, token } = await start();
    expect(await refusal(client.getTask({ id: task.id, tenant: '' }))).toMatchObject({ name: 'TaskNotFoundError', code: 'token_required' });
    expect(await refusal(client.getTask({ id: task.id, tenant: '' }, bearerHeader(hexToken('ab'))))).toMatchObject({ name: 'TaskNotFoundError', code: 'conversation_not_found' });
    const empty = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };
    expect((await client.listTasks(empty)).tasks).toEqual([]);
    expect((await client.listTasks(empty, bearerHeader(token))).tasks.map((listed) => listed.id)).toEqual([task.id]);
  });

  it('names the rule a message breaks, as REST does', async () => {
    expect(await refusal(client.sendMessage(userMessage('short', 'Hello')))).toMatchObject({ code: 'invalid_request', field: 'message.messageId', message: expect.stringMatching(/8 to 80 characters/) });
    expect(await refusal(client.sendMessage(userMessage(messageId(), 'x'.repeat(4001))))).toMatchObject({ code: 'invalid_request', field: 'message', message: expect.stringMatching(/at most 4000 characters/) });
    expect(await refusal(client.sendMessage(userMessage(messageId(), 'Hi', { metadata: firstContactMetadata({ client_access_token: 'placeholder' }) })))).toMatchObject({
      code: 'invalid_request',
      field: 'client_access_token',
      message: expect.stringMatching(/64 hex characters/),
    });
  });

  it('the REST limits hold: past LIMIT_FOLLOWUP_SOURCE a follow-up is refused with its code and Retry-After seconds', async () => {
    const { task, token } = await start();
    const limit = t.config.limits.FOLLOWUP_SOURCE[0]!.count;
    for (let sent = 0; sent < limit; sent += 1) await client.sendMessage(userMessage(messageId(), `Follow-up ${sent}`, { taskId: task.id }), bearerHeader(token));
    const refused = await refusal(client.sendMessage(userMessage(messageId(), 'One too many', { taskId: task.id }), bearerHeader(token)));
    expect(refused).toMatchObject({ code: 'rate_limited', retry_after_seconds: expect.stringMatching(/^\d+$/) });
    // Answered as REST answers it: 429 with Retry-After.
    const raw = await fetch(`${base}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'a2a-version': '1.0', authorization: `Bearer ${token}` },
      body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: { messageId: messageId(), role: 'ROLE_USER', parts: [{ text: 'Again' }], taskId: task.id } } }),
    });
    expect(raw.status).toBe(429);
    expect(Number(raw.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('answers a v0.3 client at the same address', async () => {
    const answer = await fetch(`${base}/api/a2a`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'message/send', params: { message: { kind: 'message', messageId: messageId(), role: 'user', parts: [{ kind: 'text', text: 'Hello from v0.3' }] } } }),
    });
    const body = (await answer.json()) as { result: { kind: string; id: string; status: { state: string } } };
    expect(body.result).toMatchObject({ kind: 'task', status: { state: 'working' } });
  });
});

describe('streaming from the live hub', () => {
  it('SendStreamingMessage sends the task, then INPUT_REQUIRED with the operator\'s reply, and ends', async () => {
    const events: StreamResponse[] = [];
    const stream = client.sendMessageStream(userMessage(messageId(), 'Hello, I will wait on the stream.'));
    const first = await stream.next();
    events.push(first.value as StreamResponse);
    const task = (first.value as StreamResponse).payload!;
    expect(task.$case).toBe('task');
    const taskId = (task.value as { id: string }).id;
    await vi.waitFor(() => expect(t.app.services.live.waiting).toBeGreaterThan(0));
    await admin(taskId, '/messages', { message: 'Here is my answer.' });
    for await (const event of { [Symbol.asyncIterator]: () => stream }) events.push(event);
    const last = events.at(-1)!.payload!;
    expect(last.$case).toBe('statusUpdate');
    const update = last.value as TaskStatusUpdateEvent;
    expect(update.status!.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(textOf(update.status!.message)).toBe('Here is my answer.');
  });

  it('SubscribeToTask follows a task with its token, and refuses a finished one', async () => {
    const { task, token } = await start();
    const stream = client.resubscribeTask({ id: task.id, tenant: '' }, bearerHeader(token));
    expect((await stream.next()).value).toMatchObject({ payload: { $case: 'task' } });
    await vi.waitFor(() => expect(t.app.services.live.waiting).toBeGreaterThan(0));
    await admin(task.id, '/status', { status: 'closed' });
    const update = await stream.next();
    expect(update.value).toMatchObject({ payload: { $case: 'statusUpdate', value: { status: { state: TaskState.TASK_STATE_COMPLETED } } } });
    expect((await stream.next()).done).toBe(true);
    expect(await refusal(client.resubscribeTask({ id: task.id, tenant: '' }, bearerHeader(token)).next())).toMatchObject({ name: 'UnsupportedOperationError' });
  });
});

type ErrorInfo = { metadata?: Record<string, string> };

/** The error a call was refused with: its A2A name and sentence, and the API's code (with field and Retry-After) from its ErrorInfo. */
async function refusal(pending: Promise<unknown>): Promise<Record<string, unknown>> {
  const error = (await pending.then(
    () => {
      throw new Error('the call was not refused');
    },
    (refused: unknown) => refused,
  )) as { name: string; message: string; data?: ErrorInfo[]; errorResponse?: { error: { data?: ErrorInfo[] } } };
  // A semantic error keeps its ErrorInfo as data; a server error keeps the whole envelope.
  const info = (error.data ?? error.errorResponse?.error.data)?.[0];
  return { name: error.name, message: error.message, ...info?.metadata };
}

