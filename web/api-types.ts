/**
 * The API's response shapes as the pages read them, derived from the server's response schemas so
 * that a page cannot drift from what the server sends. Type-only imports: esbuild erases them, so no
 * server code reaches a page bundle.
 */
import type { Static } from '@sinclair/typebox';
import type * as Blocks from '../src/blocks/schemas.ts';
import type * as Bridges from '../src/forum/bridges/schemas.ts';
import type * as Peers from '../src/forum/peers/schemas.ts';
import type * as Posts from '../src/forum/posts/schemas.ts';
import type * as Topics from '../src/forum/topics/schemas.ts';
import type * as Replies from '../src/inbox/schemas.ts';
import type * as Operator from '../src/inbox/operator/schemas.ts';
import type * as Visitor from '../src/inbox/visitor/schemas.ts';
import type * as SavedReplies from '../src/inbox/saved-replies/schemas.ts';
import type * as Webhooks from '../src/webhooks/schemas.ts';

export type CreationReceipt = Static<typeof Visitor.CreationReceipt>;
export type VisitorConversation = Static<typeof Visitor.VisitorConversation>;
export type ReplyReceipt = Static<typeof Replies.ReplyReceipt>;

export type InboxOverview = Static<typeof Operator.InboxOverview>;
export type ReviewLabels = Static<typeof Operator.ReviewLabels>;
export type NotificationSettings = Static<typeof Operator.NotificationSettings>;
export type WebhookStatus = Static<typeof Webhooks.WebhookStatus>;
export type TestAlertResult = Static<typeof Operator.TestAlertSent> | Static<typeof Operator.TestAlertFailure>;
export type ConversationList = Static<typeof Operator.ConversationList>;
export type ConversationListItem = Static<typeof Operator.ConversationListItem>;
export type OperatorConversation = Static<typeof Operator.OperatorConversation>;
export type RelatedToConversation = Static<typeof Operator.RelatedToConversation>;
export type BlockRecord = Static<typeof Blocks.BlockRecord>;
export type BlockList = Static<typeof Blocks.BlockList>;
export type SavedReply = Static<typeof SavedReplies.SavedReply>;
export type SavedReplyList = Static<typeof SavedReplies.SavedReplyList>;

export type CategoryList = Static<typeof Topics.CategoryList>;
export type TopicList = Static<typeof Topics.TopicList>;
export type TopicPage = Static<typeof Topics.TopicPage>;
export type ModeratorTopicPage = Static<typeof Topics.ModeratorTopicPage>;
export type ForumMessage = Static<typeof Posts.ForumMessage>;
export type BridgeList = Static<typeof Bridges.BridgeList>;
export type BridgeSummary = Static<typeof Bridges.BridgeSummary>;
export type BridgeThread = Static<typeof Bridges.BridgeThread>;
export type InvitationReceipt = Static<typeof Peers.InvitationReceipt>;
