import { Role, TaskState, type Message, type Task, type TaskStatus } from '@a2a-js/sdk';
import { isoTime } from '../clock.ts';
import type { ConversationRow, MessageRow } from '../inbox/queries.ts';
import { A2A_FACTS } from '../http/agent-facts.ts';

/**
 * The conversation as an A2A task: the task id and the context id are the conversation id.
 * - open, the operator not (yet) the last to write: WORKING;
 * - open, the operator the last to write: INPUT_REQUIRED, with the operator's message;
 * - closed: COMPLETED; spam: REJECTED (both terminal: the conversation takes no more messages).
 */
export function taskState(conversation: Pick<ConversationRow, 'status' | 'last_message_role'>): TaskState {
  if (conversation.status === 'closed') return TaskState.TASK_STATE_COMPLETED;
  if (conversation.status === 'spam') return TaskState.TASK_STATE_REJECTED;
  return conversation.last_message_role === 'admin' ? TaskState.TASK_STATE_INPUT_REQUIRED : TaskState.TASK_STATE_WORKING;
}

/** The states after which a stream ends: the terminal ones, and INPUT_REQUIRED (the operator answered). */
export function endsStream(state: TaskState): boolean {
  return state !== TaskState.TASK_STATE_WORKING;
}

export function presentMessage(message: MessageRow): Message {
  return {
    messageId: message.id,
    contextId: message.conversation_id,
    taskId: message.conversation_id,
    role: message.role === 'admin' ? Role.ROLE_AGENT : Role.ROLE_USER,
    parts: [{ content: { $case: 'text', value: message.body }, metadata: undefined, filename: '', mediaType: 'text/plain' }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

export function taskStatus(conversation: ConversationRow, messages: MessageRow[]): TaskStatus {
  const state = taskState(conversation);
  const answer = state === TaskState.TASK_STATE_INPUT_REQUIRED ? [...messages].reverse().find((message) => message.role === 'admin') : undefined;
  return { state, message: answer && presentMessage(answer), timestamp: isoTime(conversation.updated_at) };
}

/** Applies GetTask's historyLength: all when absent, none for 0, else the latest N. */
function history(messages: MessageRow[], historyLength: number | undefined): Message[] {
  const kept = historyLength === undefined ? messages : historyLength <= 0 ? [] : messages.slice(-historyLength);
  return kept.map(presentMessage);
}

/** What the task's metadata says under the extension: the token (once), or why it is not there. */
export type TokenMetadata = { access_token: string; auth_header: string; note: string } | { access_token: null; note: string };

export function presentTask(conversation: ConversationRow, messages: MessageRow[], options: { historyLength?: number; token?: TokenMetadata } = {}): Task {
  return {
    id: conversation.id,
    contextId: conversation.id,
    status: taskStatus(conversation, messages),
    artifacts: [],
    history: history(messages, options.historyLength),
    metadata: options.token && { [A2A_FACTS.extension_uri]: options.token },
  };
}
