import { CloneType, Type } from '@sinclair/typebox';
import { described, IdParam, MessageText, singleLine, Timestamp, Uuid } from '../../http/schemas.ts';

/** How many saved replies the console keeps: the list is read whole. */
export const SAVED_REPLIES_MAX = 200;

export const SavedReplyIdParams = Type.Object({ saved_reply_id: CloneType(IdParam, { description: 'Saved reply id (UUID)' }) });

const Title = singleLine(80, 1, 'What the picker shows: 1 to 80 characters on one line.');
const Body = described(MessageText, 'The text inserted into the reply box (Markdown): 1 to 4000 characters.');

export const SavedReplyInput = Type.Object({ title: Title, body: Body }, { title: 'SavedReplyInput' });
export const SavedReplyChange = Type.Object({ title: Type.Optional(Title), body: Type.Optional(Body) }, { title: 'SavedReplyChange', minProperties: 1 });

export const SavedReply = Type.Object(
  { id: Uuid, title: Type.String(), body: Type.String(), created_at: Timestamp, updated_at: Timestamp },
  { title: 'SavedReply', description: 'A reply the operator keeps for reuse.' },
);
export const SavedReplyList = Type.Object({ saved_replies: Type.Array(SavedReply, { description: `By title; at most ${SAVED_REPLIES_MAX}.` }) });
export const SavedReplyDeletion = Type.Object({ ok: Type.Literal(true), deleted: Uuid });
