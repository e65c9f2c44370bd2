import type { ServerResponse } from 'node:http';
import { Type, type Static } from '@sinclair/typebox';
import { MCP_FACTS, MCP_WAIT } from '../http/agent-facts.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError } from 'fastify';
import { bearerOf } from '../http/auth.ts';
import { answerableError } from '../http/error-handler.ts';
import { ApiError } from '../http/errors.ts';
import { described, isUuid, Uuid } from '../http/schemas.ts';
import { ConversationStatusSchema, MessageRecord } from '../inbox/schemas.ts';
import { conversationKey, type Departure } from '../live/hub.ts';
import { beginWait, EARLY_ANSWER_RETRY_SECONDS } from '../live/long-poll.ts';
import type { VisitorConversation } from '../inbox/visitor/schemas.ts';
import { AccessToken, ConversationId, id } from './arguments.ts';
import { answerAsResult, apiErrorResult, callRoute, segment, toolSuccess } from './route-call.ts';
import { toolInput, type Tool, type ToolArguments, type ToolContext } from './tool.ts';

/** A wait shorter than this is not begun. */
const SHORTEST_WAIT_MS = 250;
/**
 * Each round ends in a change of the conversation (a seen marker moving wakes it too) or in the
 * time running out; this bounds the rounds a flood of changes could make within one call.
 */
const MAX_ROUNDS = 100;

type Conversation = Static<typeof VisitorConversation>;
type Message = Conversation['messages'][number];

const WaitResult = Type.Object({
  conversation_id: described(Uuid, 'The conversation\'s id.'),
  status: ConversationStatusSchema,
  replied: Type.Boolean({ description: 'true when messages holds at least one message of the operator (role "admin").' }),
  messages: Type.Array(MessageRecord, {
    description: 'The new messages, oldest first: those after after_message_id, or after your last message when you gave none. Empty when the time ran out with nothing new.',
  }),
  last_message_id: described(Uuid, 'The id of the conversation\'s latest message: pass it as after_message_id to wait for what comes after.'),
});

/** The messages after `afterId`; every message when it is undefined. */
function messagesAfter(conversation: Conversation, afterId: string | undefined): Message[] {
  if (afterId === undefined) return conversation.messages;
  const index = conversation.messages.findIndex((message) => message.id === afterId);
  return conversation.messages.slice(index + 1);
}

/** What a result says of the conversation besides its new messages: all a held wait keeps of its read. */
interface Position {
  conversation_id: string;
  status: Conversation['status'];
  last_message_id: string;
}

const positionOf = (conversation: Conversation): Position => ({
  conversation_id: conversation.conversation_id,
  status: conversation.status,
  last_message_id: conversation.messages.at(-1)!.id,
});

function result(position: Position, fresh: Message[]) {
  return toolSuccess({
    conversation_id: position.conversation_id,
    status: position.status,
    replied: fresh.some((message) => message.role === 'admin'),
    messages: fresh,
    last_message_id: position.last_message_id,
  });
}

/** The server would not hold the wait (this source's share, or every wait, is taken): a result now would only be called again at once. */
function notHeld(retryAfterSeconds: number) {
  return apiErrorResult(
    new ApiError('rate_limited', {
      retryAfterSeconds,
      message: 'This source already holds as many waits as the server allows (MAX_WAITERS_PER_SOURCE), or the server holds all it can; call again after retry_after_seconds.',
    }),
  );
}

function timeoutSeconds(args: ToolArguments): number {
  const value = args.timeout_s ?? MCP_WAIT.defaultSeconds;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1 && value <= MCP_WAIT.formerMaxSeconds) return Math.min(value, MCP_WAIT.maxSeconds);
  throw new ApiError('invalid_request', { field: 'timeout_s', message: `The field "timeout_s" must be a whole number of seconds from 1 to ${MCP_WAIT.maxSeconds}.` });
}

/**
 * A held wait's departure: the MCP answer closing (the client went away), or `leave()` when the
 * read made after the wait began already has what the tool returns.
 */
class Leaving implements Departure {
  private listener: (() => void) | undefined;
  constructor(private readonly response: ServerResponse) {}
  on(_event: 'close', listener: () => void): void {
    this.listener = listener;
    this.response.on('close', listener);
  }
  off(_event: 'close', listener: () => void): void {
    this.listener = undefined;
    this.response.off('close', listener);
  }
  leave(): void {
    this.listener?.();
  }
}

/**
 * The message the wait counts from: after_message_id, or the visitor's own last message; an
 * ApiError when after_message_id names no message of the conversation.
 */
function baselineOf(conversation: Conversation, args: ToolArguments): string | undefined {
  if (args.after_message_id === undefined) return [...conversation.messages].reverse().find((message) => message.role === 'visitor')?.id;
  const afterId = typeof args.after_message_id === 'string' ? args.after_message_id.toLowerCase() : '';
  if (conversation.messages.some((message) => message.id === afterId)) return afterId;
  throw new ApiError('message_not_found', { field: 'after_message_id', message: 'No message of this conversation has the id in "after_message_id".' });
}

type Read = { conversation: Conversation } | { refused: CallToolResult };

/**
 * The visitor's read of the conversation (GET /api/conversations/{id}) in its route's own functions:
 * the token check, the operator's messages marked seen, the presenter; a refusal as the route's
 * error. An id that is not a UUID names no conversation: the route itself answers it (inject), as
 * its router does.
 */
async function readAsVisitor(args: ToolArguments, context: ToolContext): Promise<Read> {
  const id = args.conversation_id;
  if (typeof id !== 'string' || !isUuid(id)) {
    const answer = await callRoute(context.request, { method: 'GET', path: `/api/conversations/${segment(id)}`, token: args.access_token, signal: context.signal });
    return { refused: answerAsResult(answer) };
  }
  const { visitorReads, replyTimes } = context.request.server.services;
  try {
    const token = typeof args.access_token === 'string' ? bearerOf(`Bearer ${args.access_token}`) : undefined;
    const row = await visitorReads.authorized(token, id.toLowerCase());
    // A client gone marks nothing seen: the error handler's answer to a request whose client left.
    if (context.response.closed) throw new ApiError('invalid_request');
    return { conversation: (await visitorReads.view(row, replyTimes.typicalSeconds())).document };
  } catch (error) {
    const refusal = answerableError(error as FastifyError, context.request);
    // The route's own error hook would have counted it: this read is no request of its own.
    if (refusal.code === 'blocked') context.request.server.countBlockedRefusal();
    return { refused: apiErrorResult(refusal) };
  }
}

/**
 * One round's read, decided: a result to return now, or (when nothing is new yet) the position to
 * answer with should the wait run out. Only that position is kept while the wait is held.
 */
async function readRound(args: ToolArguments, context: ToolContext, baseline: { afterId?: string; known: boolean }) {
  const read = await readAsVisitor(args, context);
  if ('refused' in read) return { now: read.refused };
  const { conversation } = read;
  if (!baseline.known) {
    baseline.afterId = baselineOf(conversation, args);
    baseline.known = true;
  }
  const fresh = messagesAfter(conversation, baseline.afterId);
  if (fresh.length > 0 || conversation.status !== 'open') return { now: result(positionOf(conversation), fresh) };
  return { position: positionOf(conversation) };
}

/**
 * Waits on the change hub for the conversation (in the source's share of waits, released when the
 * MCP client leaves) until a message comes after the baseline, the conversation stops taking
 * messages, or the time is up. Every read is the visitor route's own (readAsVisitor). Each round
 * begins its wait before it reads, so a change committed after the read still wakes it, and one
 * read serves both.
 */
async function waitUntilNew(args: ToolArguments, context: ToolContext) {
  const seconds = timeoutSeconds(args);
  const deadline = performance.now() + seconds * 1000;
  const key = conversationKey(typeof args.conversation_id === 'string' ? args.conversation_id.toLowerCase() : '');
  const { live } = context.request.server.services;
  const started = performance.now();
  const report = context.progress;
  const ticker = report && setInterval(() => void report(Math.round((performance.now() - started) / 1000), seconds, 'waiting for the operator').catch(() => undefined), MCP_WAIT.progressSeconds * 1000);
  const baseline: { afterId?: string; known: boolean } = { known: false };
  let position: Position | undefined;
  const ranOut = () => (position ? result(position, []) : notHeld(EARLY_ANSWER_RETRY_SECONDS));
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const left = deadline - performance.now();
      const short = left < SHORTEST_WAIT_MS || context.response.closed;
      const leaving = new Leaving(context.response);
      const waiting = short ? undefined : beginWait(live, key, left, context.request, context.response, leaving);
      let decided: Awaited<ReturnType<typeof readRound>>;
      try {
        decided = await readRound(args, context, baseline);
      } catch (error) {
        leaving.leave();
        throw error;
      }
      if (decided.now) {
        leaving.leave();
        return decided.now;
      }
      position = decided.position;
      // Not held: the time is up, or the server would not hold it (the source's share, or every wait, is taken).
      if (waiting === undefined) return short ? ranOut() : notHeld(EARLY_ANSWER_RETRY_SECONDS);
      if ((await waiting) !== 'changed') return ranOut();
    }
    return ranOut();
  } finally {
    clearInterval(ticker);
  }
}

export const waitForReply: Tool = {
  name: 'wait_for_reply',
  title: 'Wait for the operator\'s reply',
  description: [
    MCP_FACTS.waiting,
    'New means after after_message_id, or after your own last message when you give none, so an earlier reply returns at once; the operator\'s messages are marked seen. It returns at once when the conversation is closed or spam: then stop.',
  ].join(' '),
  input: toolInput({
    conversation_id: ConversationId,
    access_token: AccessToken,
    timeout_s: Type.Optional(
      Type.Integer({ minimum: 1, maximum: MCP_WAIT.maxSeconds, default: MCP_WAIT.defaultSeconds, description: `Seconds to wait (1 to ${MCP_WAIT.maxSeconds}, default ${MCP_WAIT.defaultSeconds}).` }),
    ),
    after_message_id: Type.Optional(id('Optional: the id of the last message you have seen (last_message_id of the previous wait); only messages after it are new.')),
  }),
  output: WaitResult,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  holds: true,
  run: waitUntilNew,
};
