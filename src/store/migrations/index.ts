import type { Migration } from 'kysely';
import * as inbox from './0001_inbox.ts';
import * as forum from './0002_forum.ts';
import * as forumPostsRevision from './0003_forum_posts_revision.ts';
import * as changeCounter from './0004_change_counter.ts';
import * as peerPresence from './0005_peer_presence.ts';
import * as fixedLobby from './0006_fixed_lobby.ts';
import * as webhookOutbox from './0007_webhook_outbox.ts';
import * as search from './0008_search.ts';
import * as leanWrites from './0009_lean_writes.ts';
import * as a2aFirstMessages from './0010_a2a_first_messages.ts';
import * as adminKnownSources from './0011_admin_known_sources.ts';
import * as console from './0012_console.ts';
import * as alertChannels from './0013_alert_channels.ts';
import * as actionLinks from './0014_action_links.ts';
import * as blocksAndRotation from './0015_blocks_and_rotation.ts';
import * as challengesAndVerifiedAgents from './0016_challenges_and_verified_agents.ts';
import * as snooze from './0017_snooze.ts';
import * as linkBlocksAndReminderCascade from './0018_link_blocks_and_reminder_cascade.ts';
import * as webhookLosses from './0019_webhook_losses.ts';
import * as conversationSourceIndex from './0020_conversation_source_index.ts';
import * as messageVerifiedOrigin from './0021_message_verified_origin.ts';

/** Every migration in order. Append only: a released migration is never edited. */
export const migrations: Record<string, Migration> = {
  '0001_inbox': inbox,
  '0002_forum': forum,
  '0003_forum_posts_revision': forumPostsRevision,
  '0004_change_counter': changeCounter,
  '0005_peer_presence': peerPresence,
  '0006_fixed_lobby': fixedLobby,
  '0007_webhook_outbox': webhookOutbox,
  '0008_search': search,
  '0009_lean_writes': leanWrites,
  '0010_a2a_first_messages': a2aFirstMessages,
  '0011_admin_known_sources': adminKnownSources,
  '0012_console': console,
  '0013_alert_channels': alertChannels,
  '0014_action_links': actionLinks,
  '0015_blocks_and_rotation': blocksAndRotation,
  '0016_challenges_and_verified_agents': challengesAndVerifiedAgents,
  '0017_snooze': snooze,
  '0018_link_blocks_and_reminder_cascade': linkBlocksAndReminderCascade,
  '0019_webhook_losses': webhookLosses,
  '0020_conversation_source_index': conversationSourceIndex,
  '0021_message_verified_origin': messageVerifiedOrigin,
};
