import { TaskState, type AgentCard, type ListTasksRequest, type ListTasksResponse, type Message, type SendMessageRequest, type StreamResponse, type Task, type TaskStatus } from '@a2a-js/sdk';
import { ExtendedAgentCardNotConfiguredError, PushNotificationNotSupportedError, TaskNotCancelableError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler } from '@a2a-js/sdk/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { A2A_FACTS, AUTH_HEADER_TEMPLATE, TOKEN_FACTS } from '../http/agent-facts.ts';
import { bearerToken } from '../http/auth.ts';
import { requestTrust } from '../challenges/request-trust.ts';
import { requestSource, requestSources } from '../http/client-source.ts';
import { ApiError } from '../http/errors.ts';
import { ClientMessageId, isUuid, MessageBody } from '../http/schemas.ts';
import { validated } from '../http/validation.ts';
import { conversationMessage, followUp } from '../inbox/commands/append-message.ts';
import { markSeen } from '../inbox/commands/mark-seen.ts';
import { findConversation, findConversationByToken, listMessages, type ConversationRow } from '../inbox/queries.ts';
import { visitorAccess } from '../inbox/visitor/auth.ts';
import { firstContact } from '../inbox/visitor/first-contact.ts';
import { FirstContact } from '../inbox/visitor/schemas.ts';
import type { Services } from '../services.ts';
import { conversationKey } from '../live/hub.ts';
import { hashToken, tokenMatches } from '../tokens.ts';
import { perform } from '../writes/perform.ts';
import { asA2aError, ServiceRefusal } from './errors.ts';
import { startTask } from './start-task.ts';
import { endsStream, presentTask, taskState, type TokenMetadata } from './task.ts';

const MESSAGE_ID_RULE = new RegExp(ClientMessageId.pattern!);

/** A stream is a held read, bounded as one: ten of the long-poll's 60 s; the client subscribes again. */
const STREAM_SECONDS = 600;
/** Each round ends in a change of the conversation; this bounds the rounds a flood of changes could make. */
const MAX_ROUNDS = 1000;

/** What a stream reports a change of: the state, and the operator's message that comes with INPUT_REQUIRED. */
const statusKey = (status: TaskStatus | undefined) => `${status?.state}:${status?.message?.messageId ?? ''}`;

/** The message's text: its text parts, a blank line between two; a message with anything else is refused. */
function textOf(message: Message): string {
  if (message.parts.length === 0 || message.parts.some((part) => part.content?.$case !== 'text')) {
    throw new ApiError('invalid_request', { field: 'message.parts', message: 'A message to the operator holds text parts only, at least one.' });
  }
  return message.parts.map((part) => part.content!.value as string).join('\n\n');
}

function checkedMessageId(messageId: string): string {
  if (MESSAGE_ID_RULE.test(messageId)) return messageId;
  throw new ApiError('invalid_request', { field: 'message.messageId', message: `The field "message.messageId" must be 8 to 80 characters of A-Z, a-z, 0-9, "_" and "-" (^[a-zA-Z0-9_-]{8,80}$); a UUID works.` });
}

/** The fields a first message may carry in its metadata under the extension's URI. */
function firstContactFields(message: Message): Record<string, unknown> {
  const given: unknown = message.metadata?.[A2A_FACTS.extension_uri];
  if (given === undefined || given === null) return {};
  if (typeof given !== 'object' || Array.isArray(given)) throw new ApiError('invalid_request', { field: `message.metadata.${A2A_FACTS.extension_uri}`, message: 'The extension\'s metadata must be an object.' });
  const { name, invitation_id, client_access_token } = given as Record<string, unknown>;
  return { name, invitation_id, client_access_token };
}

/**
 * Parley's A2A request handler: every method over the inbox's own writes and queries, for one
 * HTTP request (its client source, its bearer token, its connection). A task is a conversation.
 */
export class ConversationTasks implements A2ARequestHandler {
  /** The refusal A2A has no error for, if a method ended in one: the route answers it with its HTTP status. */
  serviceRefusal: ServiceRefusal | undefined;

  constructor(
    private readonly services: Services,
    private readonly request: FastifyRequest,
    private readonly reply: FastifyReply,
    private readonly card: AgentCard,
  ) {}

  /** Runs one method: whatever it throws reaches the client as an A2A error. */
  private async refused<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const refusal = asA2aError(error, this.request);
      if (refusal instanceof ServiceRefusal) this.serviceRefusal = refusal;
      throw refusal;
    }
  }

  async getAgentCard(): Promise<AgentCard> {
    return this.card;
  }

  async getAuthenticatedExtendedAgentCard(): Promise<AgentCard> {
    throw new ExtendedAgentCardNotConfiguredError();
  }

  sendMessage(params: SendMessageRequest): Promise<Task> {
    return this.refused(async () => {
      const message = params.message;
      if (!message) throw new ApiError('invalid_request', { field: 'message', message: 'The field "message" is required.' });
      const messageId = checkedMessageId(message.messageId);
      const text = textOf(message);
      return message.taskId ? this.followUp(message.taskId, messageId, text) : this.start(message, messageId, text);
    });
  }

  async *sendMessageStream(params: SendMessageRequest): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.sendMessage(params);
    yield { payload: { $case: 'task', value: task } };
    // A retry without its token gets the task but not its messages, now or as they come.
    if (task.metadata?.[A2A_FACTS.extension_uri]?.access_token === null) return;
    yield* this.followChanges(task);
  }

  getTask(params: { id: string; historyLength?: number | undefined }): Promise<Task> {
    return this.refused(async () => this.read(await this.authorized(params.id), params.historyLength));
  }

  async *resubscribe(params: { id: string }): AsyncGenerator<StreamResponse, void, undefined> {
    const task = await this.getTask({ id: params.id });
    if (task.status!.state !== TaskState.TASK_STATE_WORKING && task.status!.state !== TaskState.TASK_STATE_INPUT_REQUIRED) {
      throw new UnsupportedOperationError('The task is complete (the conversation is closed) or rejected: there is nothing more to follow.');
    }
    yield { payload: { $case: 'task', value: task } };
    yield* this.followChanges(task);
  }

  /** The task the bearer token opens, or none: without a token nothing is listed. */
  listTasks(params: ListTasksRequest): Promise<ListTasksResponse> {
    return this.refused(async () => {
      const token = bearerToken(this.request);
      const conversation = token === undefined ? undefined : await findConversationByToken(this.services.store.db, hashToken(token));
      const wanted =
        conversation !== undefined &&
        (!params.contextId || params.contextId === conversation.id) &&
        (!params.status || params.status === taskState(conversation));
      const tasks = wanted ? [await this.read(conversation, params.historyLength)] : [];
      return { tasks, nextPageToken: '', pageSize: tasks.length, totalSize: tasks.length };
    });
  }

  async cancelTask(): Promise<Task> {
    throw new TaskNotCancelableError('Only the operator closes a conversation; to end it on your side, stop writing.');
  }

  async createTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async getTaskPushNotificationConfig(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async listTaskPushNotificationConfigs(): Promise<never> {
    throw new PushNotificationNotSupportedError();
  }

  async deleteTaskPushNotificationConfig(): Promise<void> {
    throw new PushNotificationNotSupportedError();
  }

  /** The first message: the REST creation's validation, limits and write, keyed by messageId for retries. */
  private async start(message: Message, messageId: string, text: string): Promise<Task> {
    const body = validated(FirstContact, { message: text, ...firstContactFields(message) });
    const { input, issued } = firstContact(body, requestSources(this.request), this.services, await requestTrust(this.request, this.services));
    const { result: conversation, duplicate } = await this.services.challenges.withFreshChallenge(() => perform(this.services, startTask, {
      ...input,
      // The messageId is part of what makes a retry the same request.
      fingerprint: `${input.fingerprint}:${messageId}`,
      messageId,
    }));
    if (duplicate && !issued.clientMade) {
      const token: TokenMetadata = { access_token: null, note: 'An earlier request with this messageId started this task; its token was given only to that request.' };
      return presentTask(conversation, [], { token });
    }
    const note = issued.clientMade ? TOKEN_FACTS.receipt_note_client : TOKEN_FACTS.receipt_note_server;
    const token: TokenMetadata = { access_token: issued.accessToken, auth_header: AUTH_HEADER_TEMPLATE, note };
    return presentTask(conversation, await listMessages(this.services.store.db, conversation.id), { token });
  }

  private async followUp(taskId: string, messageId: string, text: string): Promise<Task> {
    const conversation = await this.authorized(taskId);
    const body = validated(MessageBody, { message: text });
    const { services } = this;
    const sender = {
      role: 'visitor' as const,
      sources: requestSources(this.request),
      tokenHash: conversation.token_hash,
      verifiedOrigin: await services.signatureAgents.originOf(this.request),
    };
    await perform(services, followUp, conversationMessage(services, conversation.id, sender, { body: body.message, clientMessageId: messageId }));
    return this.read((await findConversation(services.store.db, conversation.id)) ?? conversation);
  }

  /** The conversation the bearer token opens under this id; the REST routes' 401 and 404 otherwise. */
  private async authorized(taskId: string): Promise<ConversationRow> {
    const token = bearerToken(this.request);
    if (token === undefined) throw new ApiError('token_required', { message: `Send the conversation token as "${AUTH_HEADER_TEMPLATE}".` });
    const conversation = isUuid(taskId) ? await findConversation(this.services.store.db, taskId.toLowerCase()) : undefined;
    if (!conversation || !tokenMatches(token, conversation.token_hash)) throw new ApiError('conversation_not_found');
    visitorAccess(conversation, this.services.clock.now());
    return conversation;
  }

  /**
   * The task's next changes, from the live hub: a status update each time its state or the
   * operator's latest message changes, until it needs the agent (INPUT_REQUIRED) or ends, the time
   * runs out, or the client leaves.
   */
  private async *followChanges(task: Task): AsyncGenerator<StreamResponse, void, undefined> {
    const { live, store } = this.services;
    const deadline = performance.now() + STREAM_SECONDS * 1000;
    let last = statusKey(task.status);
    for (let round = 0; round < MAX_ROUNDS; round++) {
      const left = deadline - performance.now();
      if (left <= 0) return;
      const outcome = await live.wait(conversationKey(task.id), left, this.reply.raw, requestSource(this.request));
      if (outcome !== 'changed') return;
      const conversation = await findConversation(store.db, task.id);
      if (!conversation) return;
      const { status } = await this.read(conversation, 0);
      if (statusKey(status) === last) continue;
      last = statusKey(status);
      yield { payload: { $case: 'statusUpdate', value: { taskId: task.id, contextId: task.id, status, metadata: undefined } } };
      if (endsStream(status!.state)) return;
    }
  }

  /** The task as the visitor reads it: the operator's messages are marked seen, as a REST read marks them. */
  private async read(found: ConversationRow, historyLength?: number): Promise<Task> {
    let conversation = found;
    let messages = await listMessages(this.services.store.db, conversation.id);
    if (messages.some((message) => message.role === 'admin' && message.seen_at === null)) {
      ({ conversation, messages } = (await perform(this.services, markSeen, { conversationId: conversation.id, reader: 'visitor', now: this.services.clock.now() })).result);
    }
    return presentTask(conversation, messages, { historyLength });
  }
}
