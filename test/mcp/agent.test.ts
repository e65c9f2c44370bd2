import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FORUM_FACTS, ID_FACTS } from '../../src/http/agent-facts.ts';
import { REFUSALS } from '../../src/mcp/arguments.ts';
import { adminHeaders, hexToken, type TestApp } from '../helpers.ts';
import { call, listening, mcpClient, refused, transcript, until } from './support.ts';

/*
 * /mcp driven by the SDK's own client over a real listening server: first contact, waiting for the
 * reply, a forum round, and every refusal as a tool error carrying the contract's code.
 */

let t: TestApp;
let base: string;
let client: Client;
/** Every token a tool handed out or was given in this file: none may reach a log. */
const tokens: string[] = [];

beforeAll(async () => {
  ({ t, base } = await listening({ LIMIT_CONVERSATION_SOURCE: '1000/1h', LIMIT_CONVERSATION_GLOBAL: '1000/1h', LIMIT_PEER_REGISTRATION_SOURCE: '1000/1h' }));
  client = await mcpClient(`${base}/mcp`);
});
afterAll(async () => {
  await client.close();
  await t.close();
});

interface Receipt {
  conversation_id: string;
  access_token: string;
  duplicate: boolean;
}
interface Message {
  id: string;
  role: string;
  body: string;
  seen_at: string | null;
}
interface Waited {
  conversation_id: string;
  status: string;
  replied: boolean;
  messages: Message[];
  last_message_id: string;
}

async function start(message = 'Hello operator, my user asked me to write.'): Promise<Receipt> {
  const receipt = await call<Receipt>(client, 'start_conversation', { message, name: 'MCP Agent' });
  tokens.push(receipt.access_token);
  return receipt;
}

const operatorReply = (conversationId: string, message: string) =>
  t.inject({ method: 'POST', url: `/api/admin/conversations/${conversationId}/messages`, headers: adminHeaders(), payload: { message } });

describe('the agent\'s server', () => {
  it('lists the issue\'s tools, each with its rules, an input schema and an output schema, and two readable resources', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual([
      'start_conversation',
      'read_conversation',
      'send_message',
      'wait_for_reply',
      'forum_overview',
      'list_topics',
      'read_topic',
      'register_agent',
      'create_topic',
      'join_topic',
      'post_reply',
      'leave_topic',
      'write_to_operator',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description, tool.name).toBeTruthy();
    }
    const described = Object.fromEntries(tools.map((tool) => [tool.name, tool.description!]));
    for (const name of ['start_conversation', 'send_message', 'register_agent', 'create_topic', 'post_reply', 'write_to_operator']) {
      expect(described[name], name).toMatch(/Communicate only when you are authorized to/);
      expect(described[name], name).toMatch(/Do not submit credentials/);
    }
    expect(described.start_conversation).toMatch(/keep both privately/);
    expect(described.start_conversation).toMatch(/client_access_token/);
    expect(described.send_message).toMatch(/same client_message_id/);
    // What holds for every tool is said once, in the instructions, not again in each description.
    const instructions = client.getInstructions()!;
    for (const once of [REFUSALS, FORUM_FACTS.untrusted, ID_FACTS.client_message_id]) {
      expect(instructions).toContain(once);
      for (const tool of tools) expect(tool.description, tool.name).not.toContain(once);
    }
    const start = tools.find((tool) => tool.name === 'start_conversation')!;
    expect(start.inputSchema.required).toEqual(['message']);
    expect(Object.keys(start.inputSchema.properties!)).toEqual(['message', 'name', 'invitation_id', 'client_access_token', 'challenge_solution']);

    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri)).toEqual([`${base}/api/agent-guide`, `${base}/api/forum`]);
    const guide = await client.readResource({ uri: `${base}/api/agent-guide` });
    expect(JSON.parse((guide.contents[0] as { text: string }).text).name).toBe('Parley');
    const forum = await client.readResource({ uri: `${base}/api/forum` });
    expect(JSON.parse((forum.contents[0] as { text: string }).text)).toHaveProperty('lobby_topic_id');
    await expect(client.readResource({ uri: `${base}/api/admin/overview` })).rejects.toThrow(/No resource/);
  });

  it('makes first contact: start, read, send; the operator replies over HTTP and wait_for_reply returns it within 1.5 s', async () => {
    const receipt = await start();
    expect(receipt.duplicate).toBe(false);
    const auth = { conversation_id: receipt.conversation_id, access_token: receipt.access_token };
    const read = await call<{ messages: Message[]; status: string }>(client, 'read_conversation', auth);
    expect(read.messages.map((message) => message.body)).toEqual(['Hello operator, my user asked me to write.']);
    expect(read).not.toHaveProperty('access_token');
    const sent = await call<{ message_id: string; duplicate: boolean }>(client, 'send_message', { ...auth, message: 'One more detail.', client_message_id: 'detail-0001' });
    expect(sent.duplicate).toBe(false);

    const waiting = call<Waited>(client, 'wait_for_reply', { ...auth, timeout_s: 20 });
    await until(() => t.app.services.live.waiting === 1);
    const repliedAt = performance.now();
    expect((await operatorReply(receipt.conversation_id, 'Thanks, I read you.')).statusCode).toBe(201);
    const waited = await waiting;
    expect(performance.now() - repliedAt).toBeLessThan(1500);
    expect(waited.replied).toBe(true);
    expect(waited.status).toBe('open');
    expect(waited.messages.map((message) => [message.role, message.body])).toEqual([['admin', 'Thanks, I read you.']]);
    expect(waited.messages[0]!.seen_at).not.toBeNull();
    expect(waited.last_message_id).toBe(waited.messages[0]!.id);

    // A retry of the same follow-up is acknowledged as a duplicate and stores nothing.
    const again = await call<{ message_id: string; duplicate: boolean }>(client, 'send_message', { ...auth, message: 'One more detail.', client_message_id: 'detail-0001' });
    expect(again).toMatchObject({ message_id: sent.message_id, duplicate: true });
  });

  it('wait_for_reply returns a reply that came before the call at once, nothing when the time is up, and stops on a closed conversation', async () => {
    const receipt = await start();
    const auth = { conversation_id: receipt.conversation_id, access_token: receipt.access_token };
    await operatorReply(receipt.conversation_id, 'An early answer.');
    const early = await call<Waited>(client, 'wait_for_reply', { ...auth, timeout_s: 30 });
    expect(early.messages.map((message) => message.body)).toEqual(['An early answer.']);

    const quiet = await call<Waited>(client, 'wait_for_reply', { ...auth, timeout_s: 1, after_message_id: early.last_message_id });
    expect(quiet).toMatchObject({ replied: false, messages: [], last_message_id: early.last_message_id });

    await t.inject({ method: 'POST', url: `/api/admin/conversations/${receipt.conversation_id}/status`, headers: adminHeaders(), payload: { status: 'closed' } });
    const closed = await call<Waited>(client, 'wait_for_reply', { ...auth, timeout_s: 30, after_message_id: early.last_message_id });
    expect(closed).toMatchObject({ status: 'closed', messages: [] });
    expect(t.app.services.live.waiting).toBe(0);
  });

  it('wait_for_reply answers with the messages exactly as the visitor\'s HTTP read writes them, and marks them seen as it does', async () => {
    const receipt = await start();
    const auth = { conversation_id: receipt.conversation_id, access_token: receipt.access_token };
    await operatorReply(receipt.conversation_id, 'Rendered **too**.');
    const result = (await client.callTool({ name: 'wait_for_reply', arguments: { ...auth, timeout_s: 5 } })) as { content: Array<{ text: string }> };
    const text = result.content[0]!.text;
    const read = await fetch(`${base}/api/conversations/${receipt.conversation_id}`, { headers: { authorization: `Bearer ${receipt.access_token}` } });
    const messages = (JSON.parse(await read.text()) as { messages: Array<{ role: string }> }).messages.filter((message) => message.role === 'admin');
    // The bytes, not the values: the read's serializer writes the optional body_html last.
    expect(text).toContain(`"messages":${JSON.stringify(messages)}`);
    expect(messages[0]).toMatchObject({ body_html: '<p>Rendered <strong>too</strong>.</p>', seen_at: expect.any(String) });
  });

  it('a wait whose MCP client leaves is released at once', async () => {
    const receipt = await start();
    const leaving = new AbortController();
    const body = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'wait_for_reply', arguments: { conversation_id: receipt.conversation_id, access_token: receipt.access_token, timeout_s: 50 } },
    };
    const pending = fetch(`${base}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
      body: JSON.stringify(body),
      signal: leaving.signal,
    }).catch(() => undefined);
    await until(() => t.app.services.live.waiting === 1);
    leaving.abort();
    await pending;
    await until(() => t.app.services.live.waiting === 0);
  });

  it('a wait the transport would refuse (Accept, protocol version) is refused before it is held, and a held wait answers as the SDK does', async () => {
    const receipt = await start();
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: 'wait_for_reply', arguments: { conversation_id: receipt.conversation_id, access_token: receipt.access_token, timeout_s: 50 } },
    });
    const post = (headers: Record<string, string>) => fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const jsonOnly = await post({ accept: 'application/json', 'mcp-protocol-version': '2025-06-18' });
    expect(jsonOnly.status).toBe(406);
    const unknownVersion = await post({ accept: 'application/json, text/event-stream', 'mcp-protocol-version': '1999-01-01' });
    expect(unknownVersion.status).toBe(400);
    expect(t.app.services.live.waiting).toBe(0);

    // Held before the SDK's server is made; the operator's reply ends it with the SDK's own JSON-RPC answer.
    const pending = post({ accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' });
    await until(() => t.app.services.live.waiting === 1);
    const replied = await operatorReply(receipt.conversation_id, 'Answered');
    expect(replied.statusCode).toBe(201);
    const answer = await pending;
    expect(answer.status).toBe(200);
    const rpc = (await answer.json()) as { id: number; result: { structuredContent: Waited } };
    expect(rpc.id).toBe(7);
    expect(rpc.result.structuredContent.replied).toBe(true);
    expect(rpc.result.structuredContent.messages.map((message) => message.body)).toEqual(['Answered']);
  });

  it('takes part in the forum: overview, register, create, join, reply, read, list, write to the operator, leave', async () => {
    const overview = await call<{ lobby_topic_id: string; registration: string }>(client, 'forum_overview');
    expect(overview.registration).toBe('open');
    const first = await call<{ agent_id: string; access_token: string }>(client, 'register_agent', {
      display_name: 'MCP Agent One',
      identity: { model_name: 'Example', agent_framework: 'MCP' },
    });
    const second = await call<{ agent_id: string; access_token: string }>(client, 'register_agent', { display_name: 'MCP Agent Two' });
    tokens.push(first.access_token, second.access_token);

    const created = await call<{ topic_id: string; thread_access_token: string }>(client, 'create_topic', {
      agent_access_token: first.access_token,
      title: 'Tools over MCP',
      message: 'Does anyone else reach services through MCP?',
    });
    const joined = await call<{ topic_id: string; thread_access_token: string }>(client, 'join_topic', { agent_access_token: second.access_token, topic_id: created.topic_id });
    const lobby = await call<{ thread_access_token: string }>(client, 'join_topic', { agent_access_token: second.access_token, topic_id: overview.lobby_topic_id });
    tokens.push(created.thread_access_token, joined.thread_access_token, lobby.thread_access_token);

    const posted = await call<{ message_id: string; duplicate: boolean }>(client, 'post_reply', {
      thread_access_token: joined.thread_access_token,
      topic_id: created.topic_id,
      message: 'I do, every day.',
      client_message_id: 'mcp-reply-0001',
    });
    expect(posted.duplicate).toBe(false);
    await call(client, 'post_reply', { thread_access_token: lobby.thread_access_token, topic_id: overview.lobby_topic_id, message: 'Hello from MCP.' });

    const page = await call<{ messages: Array<{ message: string }> }>(client, 'read_topic', { topic_id: created.topic_id });
    expect(page.messages.map((message) => message.message)).toEqual(['Does anyone else reach services through MCP?', 'I do, every day.']);
    const list = await call<{ topics: Array<{ topic_id: string }> }>(client, 'list_topics', { category: 'general' });
    expect(list.topics.map((topic) => topic.topic_id)).toContain(created.topic_id);

    const bridged = await call<{ duplicate: boolean }>(client, 'write_to_operator', {
      thread_access_token: created.thread_access_token,
      topic_id: created.topic_id,
      message: 'A private note for the operator.',
    });
    expect(bridged.duplicate).toBe(false);
    const bridges = await t.inject({ method: 'GET', url: '/api/admin/forum/bridges', headers: adminHeaders() });
    expect(bridges.json().bridges).toHaveLength(1);

    expect(await call(client, 'leave_topic', { thread_access_token: joined.thread_access_token, topic_id: created.topic_id })).toMatchObject({ status: 'left', duplicate: false });
    const after = await refused(client, 'post_reply', { thread_access_token: joined.thread_access_token, topic_id: created.topic_id, message: 'Still here?' });
    expect(after.code).toBe('topic_not_found');
  });
});

describe('every refusal is a tool error with the contract\'s code and sentence', () => {
  it('a wrong or missing token, a bad id, a validation error, an idempotency conflict', async () => {
    const receipt = await start();
    const wrongToken = hexToken('e');
    const wrong = await refused(client, 'read_conversation', { conversation_id: receipt.conversation_id, access_token: wrongToken });
    expect(wrong).toMatchObject({ code: 'conversation_not_found', status: 404, error: 'No conversation matches this id and token.' });
    expect(wrong.what_to_do).toMatch(/check both/);
    expect(wrong.text).not.toContain(wrongToken);

    expect((await refused(client, 'send_message', { conversation_id: receipt.conversation_id, message: 'No token' })).code).toBe('token_required');
    // An id that would lead elsewhere stays one path segment: the route answers an unknown conversation.
    const sideways = await refused(client, 'read_conversation', { conversation_id: '../../admin/overview', access_token: receipt.access_token });
    expect(sideways.code).toBe('conversation_not_found');

    const invalid = await refused(client, 'send_message', { conversation_id: receipt.conversation_id, access_token: receipt.access_token, message: '' });
    expect(invalid).toMatchObject({ code: 'invalid_request', field: 'message', status: 400 });
    expect((await refused(client, 'start_conversation', { message: 'x', client_access_token: 'placeholder' })).field).toBe('client_access_token');
    expect((await refused(client, 'wait_for_reply', { conversation_id: receipt.conversation_id, access_token: receipt.access_token, timeout_s: 61 })).field).toBe('timeout_s');
    const unknownAfter = await refused(client, 'wait_for_reply', {
      conversation_id: receipt.conversation_id,
      access_token: receipt.access_token,
      after_message_id: '00000000-0000-4000-8000-000000000000',
    });
    expect(unknownAfter).toMatchObject({ code: 'message_not_found', field: 'after_message_id' });

    const clientToken = hexToken('a1');
    tokens.push(clientToken);
    const made = await call<Receipt>(client, 'start_conversation', { message: 'First body', client_access_token: clientToken });
    expect(made.access_token).toBe(clientToken);
    expect(await call<Receipt>(client, 'start_conversation', { message: 'First body', client_access_token: clientToken })).toMatchObject({
      conversation_id: made.conversation_id,
      duplicate: true,
    });
    const conflict = await refused(client, 'start_conversation', { message: 'Another body', client_access_token: clientToken });
    expect(conflict).toMatchObject({ code: 'client_token_conflict', status: 409 });
    expect(conflict.text).not.toContain(clientToken);

    const auth = { conversation_id: made.conversation_id, access_token: clientToken };
    await call(client, 'send_message', { ...auth, message: 'Text one', client_message_id: 'conflict-0001' });
    expect((await refused(client, 'send_message', { ...auth, message: 'Text two', client_message_id: 'conflict-0001' })).code).toBe('client_message_id_conflict');

    const agentToken = hexToken('b2');
    expect((await refused(client, 'create_topic', { agent_access_token: agentToken, title: 'T', message: 'M' })).code).toBe('agent_token_required');
    expect((await refused(client, 'register_agent', { display_name: '' })).field).toBe('display_name');
  });

  it('an unknown tool is the one protocol error: the tool does not exist', async () => {
    await expect(client.callTool({ name: 'delete_everything', arguments: {} })).rejects.toThrow(/No tool has this name/);
  });

  it('a token is in no tool result but the receipt that hands it out', () => {
    const issuers = new Set(['start_conversation', 'register_agent', 'create_topic', 'join_topic']);
    const others = transcript.filter((entry) => !issuers.has(entry.tool) || entry.text.includes('"isError":true'));
    expect(others.length).toBeGreaterThan(20);
    for (const entry of others) for (const token of tokens) expect(entry.text, entry.tool).not.toContain(token);
  });

  it('no token reaches a log line', () => {
    expect(tokens.length).toBeGreaterThan(5);
    const logs = t.logs.join('');
    expect(logs).toContain('"route":"/mcp"');
    for (const token of tokens) expect(logs).not.toContain(token);
  });
});

describe('the HTTP side of /mcp', () => {
  it('GET and DELETE answer 405 with Allow: POST; a body that is not JSON, too large or not JSON-RPC gets the API\'s error shape', async () => {
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${base}/mcp`, { method });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect((await response.json()).code).toBe('method_not_allowed');
    }
    const post = (body: string, type = 'application/json') =>
      fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': type, accept: 'application/json, text/event-stream' }, body });
    expect((await (await post('{"jsonrpc":')).json()).code).toBe('invalid_json');
    expect((await (await post('hello', 'text/plain')).json()).code).toBe('unsupported_media_type');
    const large = await post(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', params: { padding: 'x'.repeat(40 * 1024) } }));
    expect(large.status).toBe(413);
    expect((await large.json()).code).toBe('payload_too_large');
    const notRpc = await post(JSON.stringify({ hello: 'world' }));
    expect(notRpc.status).toBe(400);
    expect(await notRpc.json()).toMatchObject({ code: 'invalid_request', field: 'jsonrpc' });
    // One message per POST: batches left the protocol in 2025-06-18.
    expect((await post(JSON.stringify([{ jsonrpc: '2.0', id: 1, method: 'ping' }]))).status).toBe(400);
    const answered = await post(JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'ping' }));
    expect(answered.status).toBe(200);
    expect(answered.headers.get('cache-control')).toBe('no-store');
    expect(await answered.json()).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('is in the OpenAPI documents: both endpoints in the complete one, only the agent\'s in the agents\' one', async () => {
    const complete = (await t.inject({ method: 'GET', url: '/openapi.json' })).json();
    expect(complete.paths['/mcp'].post.tags).toEqual(['mcp']);
    expect(complete.paths['/mcp'].post.description).toMatch(/Streamable HTTP/);
    expect(complete.paths['/mcp/operator'].post.security).toEqual([{ adminBearer: [] }]);
    const agents = (await t.inject({ method: 'GET', url: '/openapi.agent.json' })).json();
    expect(agents.paths).toHaveProperty('/mcp');
    expect(agents.paths).not.toHaveProperty('/mcp/operator');
  });
});
