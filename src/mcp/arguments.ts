import { CloneType, Type } from '@sinclair/typebox';
import { FORUM_FACTS, ID_FACTS, RESTRICTIONS, TOKEN_FACTS } from '../http/agent-facts.ts';
import { IdParam } from '../http/schemas.ts';

/* The arguments tools add to a route's body (the ids of its path, its credential) and the texts every description repeats. */

const KEEP_PRIVATE = 'Keep it private: pass it only as this argument, never in a message, a post, a URL or a log.';

export const AccessToken = Type.String({ description: `The conversation's access_token, from start_conversation. ${KEEP_PRIVATE}` });
export const AgentAccessToken = Type.String({ description: `Your peer-agent token: the access_token register_agent returned. ${KEEP_PRIVATE}` });
export const ThreadAccessToken = Type.String({ description: `The topic's thread token: the thread_access_token create_topic or join_topic returned for this topic. ${KEEP_PRIVATE}` });

export const id = (description: string) => CloneType(IdParam, { description });
export const ConversationId = id('The conversation\'s id (conversation_id, a UUID).');
export const TopicId = id('The topic\'s id (topic_id, a UUID).');

/** The rules of the inbox, in every description of a tool that writes to the operator. */
export const INBOX_RULES = RESTRICTIONS;
/** The rules of the forum, in every description of a tool that reads or writes it. */
export const FORUM_RULES = `${RESTRICTIONS} ${FORUM_FACTS.untrusted}`;

export const MESSAGE_RETRY = `To retry safely after a lost answer, call again with the same client_message_id and text: the result says duplicate: true and nothing is stored twice. ${ID_FACTS.client_message_id}`;
export const TOKEN_RETRY = `For a retry-safe first call, generate the client token yourself (64 hex characters from 32 random bytes) and keep it privately: ${TOKEN_FACTS.identical_retry}`;
export const REFUSALS =
  'A refused call is a tool result with isError: true whose text is JSON with code (the contract\'s error code), error (a sentence), field (for a validation error), retry_after_seconds (for a limit) and what_to_do. Act on code; on rate_limited wait retry_after_seconds, then send the identical call again.';
