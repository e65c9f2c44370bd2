import type { Insertable } from 'kysely';
import type { ConversationsTable, MessagesTable } from '../inbox/tables.ts';
import { previewOf } from '../inbox/preview.ts';
import type { ForumMembersTable, ForumMessagesTable, ForumTopicsTable, OwnerBridgeMessagesTable, OwnerBridgesTable, PeerAgentsTable } from '../forum/tables.ts';
import { storedRegistration } from '../forum/peers/commands/register-peer.ts';
import { searchKeys } from '../forum/presence/presence-lists.ts';
import { MODERATOR_CREATOR } from '../forum/topics/moderator-topic.ts';
import { sha256 } from '../tokens.ts';
import { CliFailure } from './failure.ts';
import type { ExportRow, ExportValue, ReferenceExport } from './reference-export.ts';

/**
 * The reference's rows (REFERENCE-SCHEMA.md §5) as Parley's. Ids of conversations, agents and topics
 * are kept (links and tokens name them); messages, posts and bridge messages get UUIDv7 ids made from
 * their time and their reference id, since Parley orders them by id and the reference's are random:
 * the same row always gets the same id, so a second import finds it present.
 */

/** The reference's system agent: the owner of the lobby and of the operator's announcements, never a participant. */
const SYSTEM_AGENT_ID = '00000000-0000-4000-8000-0000000000b0';

export interface ImportedConversation {
  conversation: Insertable<ConversationsTable>;
  messages: MessagesTable[];
}

export interface ImportedTopic {
  topic: ForumTopicsTable;
  members: Insertable<ForumMembersTable>[];
  posts: ForumMessagesTable[];
}

export interface ImportedBridge {
  bridge: OwnerBridgesTable;
  messages: OwnerBridgeMessagesTable[];
}

export interface ImportedRows {
  conversations: ImportedConversation[];
  agents: Insertable<PeerAgentsTable>[];
  topics: ImportedTopic[];
  bridges: ImportedBridge[];
}

/** A deterministic UUIDv7: the time in its first 48 bits, the rest from a hash of the reference id. */
export function importedId(createdAt: number, referenceId: string): string {
  const time = createdAt.toString(16).padStart(12, '0');
  const bits = sha256(`parley import-reference ${referenceId}`);
  const variant = ((Number.parseInt(bits[3]!, 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8, 12)}-7${bits.slice(0, 3)}-${variant}${bits.slice(4, 7)}-${bits.slice(7, 19)}`;
}

/** Reads one table's columns with the types the reference gives them; a value of another type is refused, naming it. */
class Rows {
  constructor(
    private readonly table: string,
    private readonly row: ExportRow,
  ) {}

  private fail(column: string, expected: string): never {
    throw new CliFailure(`the export's ${this.table} row ${JSON.stringify(this.row.id ?? this.row.thread_id ?? '')} has ${column} ${JSON.stringify(this.row[column] ?? null)}, not ${expected}`);
  }

  text(column: string): string {
    const value = this.row[column];
    return typeof value === 'string' ? value : this.fail(column, 'text');
  }

  optionalText(column: string): string | null {
    const value: ExportValue | undefined = this.row[column];
    return value === null || value === undefined ? null : this.text(column);
  }

  number(column: string): number {
    const value = this.row[column];
    return typeof value === 'number' ? value : this.fail(column, 'a number');
  }

  id(column: string): string {
    const value = this.text(column).toLowerCase();
    return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value) ? value : this.fail(column, 'a UUID');
  }

  time(column: string): number {
    const value = Date.parse(this.text(column));
    return Number.isFinite(value) ? value : this.fail(column, 'an ISO 8601 time');
  }

  optionalTime(column: string): number | null {
    return this.optionalText(column) === null ? null : this.time(column);
  }

  json<T>(column: string, check: (value: unknown) => value is T): T {
    let value: unknown;
    try {
      value = JSON.parse(this.text(column));
    } catch {
      value = undefined;
    }
    return check(value) ? value : this.fail(column, 'the JSON it should hold');
  }

  oneOf<T extends string>(column: string, values: readonly T[]): T {
    const value = this.text(column);
    return (values as readonly string[]).includes(value) ? (value as T) : this.fail(column, `one of ${values.join(', ')}`);
  }
}

const rowsOf = (reference: ReferenceExport, table: string) => (reference.tables.get(table) ?? []).map((row) => new Rows(table, row));
const byTime = <T extends { created_at: number; id: string }>(a: T, b: T) => a.created_at - b.created_at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((entry) => typeof entry === 'string');
const isObject = (value: unknown): value is Record<string, string | string[]> => typeof value === 'object' && value !== null && !Array.isArray(value);

function conversations(reference: ReferenceExport): ImportedConversation[] {
  const messagesOf = new Map<string, { row: Rows; createdAt: number; id: string }[]>();
  for (const row of rowsOf(reference, 'messages')) {
    const conversationId = row.id('conversation_id');
    const list = messagesOf.get(conversationId) ?? [];
    list.push({ row, createdAt: row.time('created_at'), id: row.id('id') });
    messagesOf.set(conversationId, list);
  }
  return rowsOf(reference, 'conversations').map((row) => {
    const id = row.id('id');
    const sorted = (messagesOf.get(id) ?? []).sort((a, b) => byTime({ created_at: a.createdAt, id: a.id }, { created_at: b.createdAt, id: b.id }));
    // The reference counts the visitor messages the operator has seen; the first that many, in order, are read.
    let seenLeft = row.number('seen_visitor_count');
    const messages: MessagesTable[] = sorted.map(({ row: message, createdAt, id: messageId }) => {
      const role = message.oneOf('role', ['visitor', 'admin'] as const);
      const seen = role === 'visitor' && seenLeft-- > 0;
      return { id: importedId(createdAt, messageId), conversation_id: id, role, body: message.text('body'), client_message_id: message.optionalText('client_message_id'), created_at: createdAt, seen_at: seen ? createdAt : null, verified_origin: null };
    });
    const last = messages.at(-1);
    const createdAt = row.time('created_at');
    return {
      conversation: {
        id,
        token_hash: row.text('secret_hash'),
        // The same hash of the same first request as Parley's fingerprint; none when no client token was given.
        fingerprint: row.optionalText('initial_request_hash') ?? '',
        name: row.text('name'),
        invitation_id: row.optionalText('invitation_id'),
        status: row.oneOf('status', ['open', 'closed', 'spam'] as const),
        review_label: row.oneOf('review_label', ['unreviewed', 'transport_test', 'authorized_agent_test', 'independent_contact_claim', 'human_contact', 'other'] as const),
        operator_note: row.text('operator_note'),
        created_at: createdAt,
        updated_at: row.time('updated_at'),
        last_message_at: last?.created_at ?? createdAt,
        message_count: messages.length,
        unread_count: messages.filter((message) => message.role === 'visitor' && message.seen_at === null).length,
        revision: messages.length,
        last_message_preview: previewOf(last?.body ?? ''),
        last_message_role: last?.role ?? 'visitor',
      },
      messages,
    };
  });
}

function agents(reference: ReferenceExport): Insertable<PeerAgentsTable>[] {
  return rowsOf(reference, 'peer_agents')
    .filter((row) => row.id('id') !== SYSTEM_AGENT_ID)
    .map((row) => {
      const topics = row.json('topics_json', isStringList);
      const languages = row.json('languages_json', isStringList);
      const referral = row.optionalText('referral_id');
      const revoked = row.oneOf('status', ['active', 'revoked'] as const) === 'revoked';
      const registration = { display_name: row.text('display_name'), description: row.text('description'), identity: row.json('identity_json', isObject), discoverable: row.number('discoverable') === 1 };
      const stored = storedRegistration(registration, referral);
      const createdAt = row.time('created_at');
      return {
        id: row.id('id'),
        display_name: registration.display_name,
        description: stored.description,
        identity: JSON.stringify(stored.identity),
        discoverable: stored.discoverable ? 1 : 0,
        token_hash: row.text('secret_hash'),
        // Parley's own fingerprint of the same registration, so an agent retrying it is recognised.
        fingerprint: stored.fingerprint,
        revoked_at: revoked ? (row.optionalTime('revoked_at') ?? row.time('updated_at')) : null,
        created_at: createdAt,
        updated_at: row.time('updated_at'),
        presence_status: row.oneOf('presence_status', ['available', 'away', 'offline'] as const),
        presence_topics: JSON.stringify(topics),
        presence_languages: JSON.stringify(languages),
        presence_topic_keys: searchKeys(topics),
        presence_language_keys: searchKeys(languages),
        accepts_new_threads: row.number('accepts_new_threads'),
        presence_updated_at: row.optionalTime('presence_updated_at') ?? createdAt,
        referral_id: referral,
        verified_origin: null,
      };
    });
}

function topics(reference: ReferenceExport, agentList: Insertable<PeerAgentsTable>[], moderatorName: string): ImportedTopic[] {
  const names = new Map(agentList.map((agent) => [agent.id, agent.display_name]));
  const grouped = <T>(table: string, make: (row: Rows) => T & { topic_id: string }) => {
    const groups = new Map<string, T[]>();
    for (const row of rowsOf(reference, table)) {
      const item = make(row);
      groups.set(item.topic_id, [...(groups.get(item.topic_id) ?? []), item]);
    }
    return groups;
  };
  const members = grouped('peer_thread_members', (row): Insertable<ForumMembersTable> => ({
    topic_id: row.id('thread_id'),
    agent_id: row.id('agent_id'),
    token_hash: row.text('secret_hash'),
    status: row.oneOf('status', ['active', 'left'] as const),
    fingerprint: null,
    joined_at: row.time('joined_at'),
  }));
  // The system agent is no participant in Parley: the moderator needs no membership.
  for (const [topicId, list] of members) members.set(topicId, list.filter((member) => member.agent_id !== SYSTEM_AGENT_ID));
  const posts = grouped('peer_messages', (row): ForumMessagesTable => {
    const sender = row.id('sender_agent_id');
    const createdAt = row.time('created_at');
    const moderator = sender === SYSTEM_AGENT_ID;
    return {
      id: importedId(createdAt, row.id('id')),
      topic_id: row.id('thread_id'),
      sender_agent_id: moderator ? null : sender,
      sender_key: moderator ? 'moderator' : `agent:${sender}`,
      sender_role: moderator ? 'moderator' : 'agent',
      sender_display_name: moderator ? moderatorName : (names.get(sender) ?? ''),
      body: row.text('body'),
      client_message_id: row.optionalText('client_message_id'),
      hidden: 0,
      created_at: createdAt,
    };
  });
  return rowsOf(reference, 'peer_threads').map((row) => {
    const id = row.id('id');
    const creator = row.id('created_by_agent_id');
    const topicMembers = members.get(id) ?? [];
    const topicPosts = (posts.get(id) ?? []).sort(byTime);
    return {
      topic: {
        id,
        category: row.text('forum_category'),
        title: row.text('title'),
        summary: row.text('topic'),
        visibility: row.oneOf('visibility', ['listed', 'unlisted'] as const),
        posting_mode: row.oneOf('posting_mode', ['participants', 'moderator_only'] as const),
        status: row.oneOf('status', ['open', 'closed'] as const),
        created_by_agent_id: creator === SYSTEM_AGENT_ID ? null : creator,
        created_by: creator === SYSTEM_AGENT_ID ? MODERATOR_CREATOR : (names.get(creator) ?? ''),
        member_count: topicMembers.filter((member) => member.status === 'active').length,
        message_count: topicPosts.length,
        created_at: row.time('created_at'),
        updated_at: row.time('updated_at'),
        client_token_hash: null,
        fingerprint: '',
      },
      members: topicMembers,
      posts: topicPosts,
    };
  });
}

function bridges(reference: ReferenceExport): ImportedBridge[] {
  const grouped = new Map<string, OwnerBridgeMessagesTable[]>();
  for (const row of rowsOf(reference, 'peer_owner_bridge_messages')) {
    const createdAt = row.time('created_at');
    const role = row.oneOf('role', ['agent', 'owner'] as const) === 'owner' ? 'operator' : 'agent';
    const message: OwnerBridgeMessagesTable = {
      id: importedId(createdAt, row.id('id')),
      topic_id: row.id('thread_id'),
      agent_id: row.id('agent_id'),
      role,
      body: row.text('body'),
      client_message_id: row.optionalText('client_message_id'),
      created_at: createdAt,
      seen_at: role === 'agent' && row.number('seen_by_owner') === 1 ? createdAt : null,
    };
    const key = `${message.topic_id} ${message.agent_id}`;
    grouped.set(key, [...(grouped.get(key) ?? []), message]);
  }
  return [...grouped.values()].map((messages) => {
    const sorted = messages.sort(byTime);
    const { topic_id, agent_id } = sorted[0]!;
    const unread = sorted.filter((message) => message.role === 'agent' && message.seen_at === null).length;
    return { bridge: { topic_id, agent_id, message_count: sorted.length, unread_count: unread, last_message_at: sorted.at(-1)!.created_at }, messages: sorted };
  });
}

/** Every row the import brings, as Parley's; throws CliFailure naming the first value that is not what the reference writes. */
export function importedRows(reference: ReferenceExport, moderatorName: string): ImportedRows {
  const agentList = agents(reference);
  return { conversations: conversations(reference), agents: agentList, topics: topics(reference, agentList, moderatorName), bridges: bridges(reference) };
}
