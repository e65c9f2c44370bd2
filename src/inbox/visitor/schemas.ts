import { Type, type Static } from '@sinclair/typebox';
import { AUTH_HEADER_TEMPLATE, ID_FACTS, SEEN_MARKER, SELF_IDENTIFICATION, TOKEN_FACTS, WAITING_FACTS } from '../../http/agent-facts.ts';
import { CHALLENGE_ERRORS, described, HexToken, MessageText, NotModified, Timestamp, TypicalFirstReply, Uuid, responses, singleLine } from '../../http/schemas.ts';
import { ROTATED, rotationReceipt } from '../../http/rotation.ts';
import { ConversationStatusSchema, MessageRecord, ReplyReceipt } from '../schemas.ts';

export const FirstContact = Type.Object(
  {
    message: described(MessageText, 'Your first message to the operator: who you are, why you write, what you would like (1 to 4000 characters).'),
    name: Type.Optional(singleLine(60, 0, `Optional, self-reported: ${SELF_IDENTIFICATION.name}`)),
    invitation_id: Type.Optional(singleLine(80, 0, `Optional, self-reported: ${SELF_IDENTIFICATION.invitation_id}`)),
    client_access_token: Type.Optional(described(HexToken, `Optional: ${TOKEN_FACTS.client_access_token} ${TOKEN_FACTS.identical_retry}`)),
  },
  { description: `Starts a new conversation. ${SELF_IDENTIFICATION.purpose}` },
);
export type FirstContact = Static<typeof FirstContact>;

export const CreationReceipt = Type.Object({
  conversation_id: described(Uuid, 'The conversation\'s id: keep it with the access token; together they are the way back.'),
  access_token: Type.String({ description: TOKEN_FACTS.access_token }),
  status: ConversationStatusSchema,
  duplicate: Type.Boolean({ description: 'false: created now (201). true: an identical retry (200); this is the conversation the first request created.' }),
  read_url: Type.String({ format: 'uri', description: 'GET it with the access token to read every message.' }),
  reply_url: Type.String({ format: 'uri', description: 'POST {"message", "client_message_id"} to it with the access token to write a follow-up.' }),
  auth_header: Type.String({ description: `The header to send, as a template: the literal text "${AUTH_HEADER_TEMPLATE}"; put your access token in place of <access_token>.` }),
  note: Type.String({ description: 'One sentence on keeping the token: server-made tokens cannot be recovered; a client-made token is the one you sent.' }),
  typical_first_reply_seconds: TypicalFirstReply,
}, { title: 'CreationReceipt' });

export const VisitorConversation = Type.Object({
  conversation_id: described(Uuid, 'The conversation\'s id.'),
  name: Type.String({ description: 'The name you gave at creation, or "Anonymous".' }),
  invitation_id: Type.Union([Type.String(), Type.Null()], { description: 'The invitation id you gave at creation, or null.' }),
  status: ConversationStatusSchema,
  created_at: described(Timestamp, 'When the conversation was created.'),
  updated_at: described(Timestamp, 'When a message was last written to it.'),
  messages: Type.Array(MessageRecord, { description: 'Every message, oldest first (a conversation holds at most 200).' }),
  typical_first_reply_seconds: TypicalFirstReply,
});

export const CreationResponses = responses(
  {
    201: described(CreationReceipt, 'Created: a new conversation; save conversation_id and access_token now.'),
    200: described(CreationReceipt, `An identical retry: ${TOKEN_FACTS.identical_retry}`),
  },
  { 400: ['invalid_request', 'invalid_json'], 403: ['blocked'], 409: ['client_token_conflict'], 413: ['payload_too_large'], 415: ['unsupported_media_type'], ...CHALLENGE_ERRORS, 429: ['rate_limited', 'inbox_at_capacity'] },
);

export const ReadResponses = responses(
  {
    200: described(VisitorConversation, 'The conversation with every message; carries an ETag (the operation says how to wait with it).'),
    304: NotModified,
  },
  { 401: ['token_required', 'token_revoked'], 403: ['blocked'], 404: ['conversation_not_found'] },
);

export const FollowUpResponses = responses(
  {
    201: described(ReplyReceipt, 'Created: the follow-up is stored and the operator alerted.'),
    200: described(ReplyReceipt, 'An identical retry (the same client_message_id and text): the earlier message, stored once; the client_message_id rules are on the field.'),
  },
  {
    400: ['invalid_request', 'invalid_json'],
    401: ['token_required', 'token_revoked'],
    403: ['blocked'],
    404: ['conversation_not_found'],
    409: ['client_message_id_conflict', 'conversation_closed', 'conversation_full'],
    413: ['payload_too_large'],
    415: ['unsupported_media_type'],
    429: ['rate_limited'],
  },
);

export const CREATION_DESCRIPTION = [
  'Starts a NEW conversation with the human operator; to return to one, GET it and POST to its messages with the same id and token, never create another.',
  `client_access_token (optional): ${TOKEN_FACTS.client_access_token}`,
  TOKEN_FACTS.server_token,
  TOKEN_FACTS.identical_retry,
  TOKEN_FACTS.client_token_conflict,
].join(' ');

export const READ_DESCRIPTION = [
  'Returns every message, oldest first, and marks the operator\'s messages seen.',
  SEEN_MARKER,
  WAITING_FACTS.how,
  WAITING_FACTS.wait,
  WAITING_FACTS.interval,
  WAITING_FACTS.stop,
].join(' ');

export const FOLLOW_UP_DESCRIPTION = ['Writes a follow-up to the operator in this conversation.', ID_FACTS.client_message_id].join(' ');

export const ConversationRotationReceipt = rotationReceipt('conversation_id', Uuid, 'ConversationRotationReceipt');

export const RotationResponses = responses(
  { 201: described(ConversationRotationReceipt, ROTATED), 200: ConversationRotationReceipt },
  { 400: ['invalid_request', 'invalid_json'], 401: ['token_required', 'token_revoked'], 403: ['blocked'], 404: ['conversation_not_found'], 409: ['client_token_conflict'] },
);
