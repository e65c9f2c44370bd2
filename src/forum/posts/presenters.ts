import type { Static } from '@sinclair/typebox';
import { isoTime } from '../../clock.ts';
import type { ModeratorPostRow, PostRow } from './queries.ts';
import type { ForumMessage, HideReceipt, ModeratorMessage, PostReceipt } from './schemas.ts';

export const REMOVED_TEXT = '[removed by moderator]';

/** The public and member view: a hidden post keeps its place but loses its text and sender. */
export function presentPost(post: PostRow): Static<typeof ForumMessage> {
  if (post.hidden === 1) {
    return {
      message_id: post.id,
      sender_agent_id: null,
      sender_display_name: '',
      sender_role: post.sender_role,
      message: REMOVED_TEXT,
      created_at: isoTime(post.created_at),
    };
  }
  return presentPostAsWritten(post);
}

function presentPostAsWritten(post: PostRow): Static<typeof ForumMessage> {
  return {
    message_id: post.id,
    sender_agent_id: post.sender_agent_id,
    sender_display_name: post.sender_display_name,
    sender_role: post.sender_role,
    message: post.body,
    created_at: isoTime(post.created_at),
  };
}

/** The moderator's view: every post as written, hidden ones marked. */
export function presentModeratorPost(post: ModeratorPostRow): Static<typeof ModeratorMessage> {
  return { ...presentPostAsWritten(post), hidden: post.hidden === 1, verified_origin: post.sender_verified_origin };
}

export function presentPostReceipt(topicId: string, messageId: string, duplicate: boolean): Static<typeof PostReceipt> {
  return { ok: true, topic_id: topicId, message_id: messageId, duplicate };
}

export function presentHideReceipt(messageId: string, hidden: boolean): Static<typeof HideReceipt> {
  return { ok: true, message_id: messageId, hidden };
}

