import { createHash, randomBytes } from 'node:crypto';
import { REFERENCE_V1_5 } from '../../src/cli/import-reference.ts';

/*
 * An export of the reference service's D1 database (schema v1.5) written as `wrangler d1 export`
 * writes one (../shared/spec/REFERENCE-SCHEMA.md §2): the PRAGMA, each table's CREATE TABLE with its
 * added columns appended, one INSERT per row with every identifier quoted, text with line breaks as
 * replace(…, char(10)), sqlite_sequence last, then the indexes.
 */

type Value = string | number | null;

/** The reference's hash of a token: lowercase hex SHA-256 of its text. */
export const referenceHash = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');
export const newReferenceToken = () => randomBytes(32).toString('hex');

/** The six migrations of the reference's v1.5 schema (REFERENCE-SCHEMA.md §1), as d1_migrations names them. */
export const MIGRATIONS = REFERENCE_V1_5;

export const SYSTEM_AGENT = '00000000-0000-4000-8000-0000000000b0';
export const LOBBY = '00000000-0000-4000-8000-0000000000b1';

/** A value as the export writes it. */
function literal(value: Value): string {
  if (value === null) return 'NULL';
  if (typeof value === 'number') return String(value);
  let text = `'${value.replace(/'/g, "''")}'`;
  if (value.includes('\n')) {
    const placeholder = value.includes('\\n') ? '\\012' : '\\n';
    text = `replace(${text.split('\n').join(placeholder)},'${placeholder}',char(10))`;
  }
  if (value.includes('\r')) text = `replace(${text.split('\r').join('\\r')},'\\r',char(13))`;
  return text;
}

const CREATE: Record<string, string> = {
  d1_migrations: `CREATE TABLE d1_migrations(
\t\tid         INTEGER PRIMARY KEY AUTOINCREMENT,
\t\tname       TEXT UNIQUE,
\t\tapplied_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
)`,
  conversations: `CREATE TABLE conversations (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL,
  name TEXT NOT NULL,
  invitation_id TEXT,
  status TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'closed', 'spam')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
, visitor_message_count INTEGER NOT NULL DEFAULT 0, seen_visitor_count INTEGER NOT NULL DEFAULT 0, initial_request_hash TEXT, review_label TEXT NOT NULL DEFAULT 'unreviewed', operator_note TEXT NOT NULL DEFAULT '' CHECK (length(operator_note) <= 500))`,
  messages: `CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('visitor', 'admin')),
  body TEXT NOT NULL,
  created_at TEXT NOT NULL
, client_message_id TEXT)`,
  rate_limits: `CREATE TABLE rate_limits (
  key TEXT PRIMARY KEY,
  hits INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
)`,
  peer_agents: `CREATE TABLE peer_agents (
  id TEXT PRIMARY KEY,
  secret_hash TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  identity_json TEXT NOT NULL DEFAULT '{}',
  discoverable INTEGER NOT NULL DEFAULT 1,
  status TEXT NOT NULL DEFAULT 'active',
  initial_request_hash TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
, presence_status TEXT NOT NULL DEFAULT 'offline', topics_json TEXT NOT NULL DEFAULT '[]', languages_json TEXT NOT NULL DEFAULT '[]', accepts_new_threads INTEGER NOT NULL DEFAULT 1, presence_updated_at TEXT, referral_id TEXT, revoked_at TEXT)`,
  peer_threads: `CREATE TABLE peer_threads (
  id TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  topic TEXT NOT NULL DEFAULT '',
  visibility TEXT NOT NULL DEFAULT 'listed',
  status TEXT NOT NULL DEFAULT 'open',
  created_by_agent_id TEXT NOT NULL REFERENCES peer_agents(id),
  initial_request_hash TEXT,
  message_count INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
, thread_kind TEXT NOT NULL DEFAULT 'standard', closed_at TEXT, forum_category TEXT NOT NULL DEFAULT 'general', posting_mode TEXT NOT NULL DEFAULT 'participants', operator_readable INTEGER NOT NULL DEFAULT 1)`,
  peer_thread_members: `CREATE TABLE peer_thread_members (
  thread_id TEXT NOT NULL REFERENCES peer_threads(id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL REFERENCES peer_agents(id) ON DELETE CASCADE,
  secret_hash TEXT NOT NULL UNIQUE,
  status TEXT NOT NULL DEFAULT 'active',
  joined_at TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  PRIMARY KEY (thread_id, agent_id)
)`,
  peer_messages: `CREATE TABLE peer_messages (
  id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL REFERENCES peer_threads(id) ON DELETE CASCADE,
  sender_agent_id TEXT NOT NULL REFERENCES peer_agents(id),
  body TEXT NOT NULL,
  client_message_id TEXT,
  created_at TEXT NOT NULL
)`,
  peer_owner_bridge_messages: `CREATE TABLE peer_owner_bridge_messages (
  id TEXT PRIMARY KEY,
  thread_id TEXT NOT NULL REFERENCES peer_threads(id) ON DELETE CASCADE,
  agent_id TEXT NOT NULL REFERENCES peer_agents(id) ON DELETE CASCADE,
  role TEXT NOT NULL CHECK (role IN ('agent', 'owner')),
  body TEXT NOT NULL,
  client_message_id TEXT,
  seen_by_owner INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
)`,
  forum_categories: `CREATE TABLE forum_categories (
  slug TEXT PRIMARY KEY,
  title TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  sort_order INTEGER NOT NULL DEFAULT 100,
  agent_can_create INTEGER NOT NULL DEFAULT 1,
  moderator_only INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL
)`,
};

export type Tables = Partial<Record<keyof typeof CREATE, Record<string, Value>[]>>;

/** The export's text for `tables`' rows (each row's columns in the table's order). */
export function exportText(tables: Tables): string {
  const statements = ['PRAGMA defer_foreign_keys=TRUE;'];
  for (const [table, create] of Object.entries(CREATE)) {
    statements.push(`${create};`);
    for (const row of tables[table as keyof typeof CREATE] ?? []) {
      statements.push(`INSERT INTO "${table}" (${Object.keys(row).map((column) => `"${column}"`).join(',')}) VALUES(${Object.values(row).map(literal).join(',')});`);
    }
  }
  statements.push('DELETE FROM sqlite_sequence;', `INSERT INTO "sqlite_sequence" ("name","seq") VALUES('d1_migrations',${(tables.d1_migrations ?? []).length});`);
  statements.push('CREATE UNIQUE INDEX idx_conversations_secret_hash ON conversations(secret_hash);');
  statements.push('CREATE UNIQUE INDEX idx_messages_client_retry ON messages(conversation_id, role, client_message_id) WHERE client_message_id IS NOT NULL;');
  return `${statements.join('\n')}\n`;
}

export const migrationRows = (names = MIGRATIONS) => names.map((name, index) => ({ id: index + 1, name, applied_at: '2026-10-09 00:00:00' }));

export const categoryRows = () =>
  (
    [
      ['announcements', 'Moderator Announcements', 5, 0, 1],
      ['lobby', 'Lobby', 10, 0, 0],
      ['general', 'General', 20, 1, 0],
      ['research', 'Research & Experiments', 30, 1, 0],
      ['help', 'Questions & Help', 40, 1, 0],
    ] as const
  ).map(([slug, title, order, create, moderator]) => ({ slug, title, description: '', sort_order: order, agent_can_create: create, moderator_only: moderator, created_at: '2026-10-09T00:00:00Z' }));
