/**
 * Fills a store with many conversations for benchmarks and manual checks of the operator views:
 *   npm run seed -- --count 100000        (or SEED_COUNT; the store comes from DATA_DIR / DATABASE_URL)
 * Rows go straight into the tables in batched transactions, together with the aggregate counters
 * (inbox_counters, invitation_counts) that count them, so the overview stays consistent. Nobody
 * holds the seeded conversations' tokens: only random hashes are stored.
 */
import { parseArgs } from 'node:util';
import type { Insertable, Kysely } from 'kysely';
import { v7 as uuidv7 } from 'uuid';
import { readSettings } from '../src/cli/settings.ts';
import { ConfigError } from '../src/config.ts';
import { bumpCounters, bumpInvitationCount, counterName } from '../src/inbox/overview-counters.ts';
import { REVIEW_LABELS, type ConversationStatus, type ReviewLabel } from '../src/inbox/schemas.ts';
import type { ConversationsTable, MessagesTable } from '../src/inbox/tables.ts';
import { migrate } from '../src/store/migrate.ts';
import { openStore } from '../src/store/open-store.ts';
import type { Store } from '../src/store/store.ts';
import type { Database } from '../src/store/schema.ts';
import { flushSearchIndex } from '../src/inbox/search-index.ts';
import { hashToken, newToken, sha256 } from '../src/tokens.ts';

/**
 * Bump when the shape of the seeded data changes; the benchmark's seeded-store cache keys on it.
 * 2: the search index is built as the rows are written.
 */
export const SEED_VERSION = 2;

export const DEFAULT_SEED_COUNT = 100_000;
const MAX_SEED_COUNT = 10_000_000;
const CONVERSATIONS_PER_TRANSACTION = 5_000;
// Rows per INSERT statement, kept far below SQLite's 32,766 and PostgreSQL's 65,535 bound parameters.
const CONVERSATION_ROWS_PER_INSERT = 500;
const MESSAGE_ROWS_PER_INSERT = 1_000;

const REVIEWED_LABELS = REVIEW_LABELS.filter((label) => label !== 'unreviewed');
const INVITATION_IDS = Array.from({ length: 40 }, (_, index) => `seed-invitation-${String(index + 1).padStart(2, '0')}`);
const SPAN_MS = 90 * 86_400_000;
const MINUTE_MS = 60_000;
const FILLER =
  'We are an automated research agent testing first-contact etiquette. This message was seeded for a benchmark, ' +
  'so it carries no real content; it only has the length of an ordinary note between an agent and an operator. ' +
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore.';

type ConversationInsert = Insertable<ConversationsTable>;
type MessageInsert = Insertable<MessagesTable>;

/** A fixed, well-mixed 32-bit hash of (index, salt): the data is varied yet the same on every run. */
function mix(index: number, salt: number): number {
  let x = Math.imul(index ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** A number in [0, 1) drawn from `mix`. */
function fraction(index: number, salt: number): number {
  return mix(index, salt) / 0x1_0000_0000;
}

function pickStatus(index: number): ConversationStatus {
  const u = fraction(index, 1);
  return u < 0.7 ? 'open' : u < 0.9 ? 'closed' : 'spam';
}

function pickLabel(index: number): ReviewLabel {
  const u = fraction(index, 2);
  if (u < 0.55) return 'unreviewed';
  return REVIEWED_LABELS[Math.floor(((u - 0.55) / 0.45) * REVIEWED_LABELS.length)]!;
}

/** About a third of the conversations carry an invitation id, a few ids far more often than others. */
function pickInvitation(index: number): string | null {
  if (fraction(index, 3) >= 0.35) return null;
  return INVITATION_IDS[Math.floor(fraction(index, 4) ** 2 * INVITATION_IDS.length)]!;
}

function body(index: number, position: number): string {
  const length = 40 + (mix(index, 10 + position) % (FILLER.length - 40));
  return `Seeded message ${position + 1} of conversation ${index}. ${FILLER.slice(0, length)}`;
}

/** One conversation and its messages, consistent with each other: counts, unread, seen markers, times. */
function buildConversation(index: number, count: number, now: number) {
  const status = pickStatus(index);
  const invitationId = pickInvitation(index);
  const name = fraction(index, 5) < 0.3 ? 'Anonymous' : `Seed agent ${index}`;
  const createdAt = now - SPAN_MS + Math.floor((index * SPAN_MS) / count) - 60 * MINUTE_MS;
  const messageCount = 1 + (mix(index, 6) % 5);
  // The operator has not read the visitor messages after its last reply in ~40% of the conversations.
  const operatorBehind = fraction(index, 7) < 0.4;
  const roles: MessageInsert['role'][] = Array.from({ length: messageCount }, (_, position) =>
    position === 0 || mix(index, 20 + position) % 3 !== 0 ? 'visitor' : 'admin',
  );
  const lastAdmin = roles.lastIndexOf('admin');
  const messages: MessageInsert[] = [];
  let unread = 0;
  for (let position = 0; position < messageCount; position += 1) {
    const role = roles[position]!;
    const createdAtMessage = createdAt + position * 7 * MINUTE_MS;
    let seenAt: number | null = createdAtMessage + 2 * MINUTE_MS;
    if (role === 'visitor' && position > lastAdmin && operatorBehind) {
      seenAt = null;
      unread += 1;
    }
    if (role === 'admin' && position === messageCount - 1 && fraction(index, 8) < 0.5) seenAt = null;
    messages.push({
      id: uuidv7({ msecs: createdAtMessage }),
      conversation_id: '',
      role,
      body: body(index, position),
      client_message_id: position === 0 ? null : `seed-${index}-${position}`,
      created_at: createdAtMessage,
      seen_at: seenAt,
    });
  }
  const lastMessageAt = messages[messages.length - 1]!.created_at;
  // A status other than open was set by the operator after the last message.
  const updatedAt = status === 'open' ? lastMessageAt : lastMessageAt + 30 * MINUTE_MS;
  const conversation: ConversationInsert = {
    id: uuidv7({ msecs: createdAt }),
    token_hash: hashToken(newToken()),
    // Same fingerprint as the creation route computes, though no retry can name a seeded token.
    fingerprint: sha256(JSON.stringify([name, invitationId, messages[0]!.body])),
    name,
    invitation_id: invitationId,
    status,
    review_label: pickLabel(index),
    operator_note: fraction(index, 9) < 0.1 ? 'Seeded operator note.' : '',
    created_at: createdAt,
    updated_at: updatedAt,
    last_message_at: lastMessageAt,
    message_count: messageCount,
    unread_count: unread,
    revision: messageCount + (status === 'open' ? 0 : 1),
  };
  for (const message of messages) message.conversation_id = conversation.id;
  return { conversation, messages };
}

async function insertInChunks<T extends 'conversations' | 'messages'>(
  db: Kysely<Database>,
  table: T,
  rows: Insertable<Database[T]>[],
  size: number,
): Promise<void> {
  for (let start = 0; start < rows.length; start += size) {
    await db.insertInto(table).values(rows.slice(start, start + size) as never).execute();
  }
}

export interface SeedResult {
  conversations: number;
  messages: number;
  milliseconds: number;
}

/**
 * Adds `count` conversations to the store, `CONVERSATIONS_PER_TRANSACTION` per transaction, each
 * transaction also adding its rows to the aggregate counters and, on SQLite, to the search index.
 */
export async function seedStore(
  store: Store,
  options: { count: number; now?: number; progress?: (done: number) => void },
): Promise<SeedResult> {
  const started = performance.now();
  const now = options.now ?? Date.now();
  let messageTotal = 0;
  for (let first = 0; first < options.count; first += CONVERSATIONS_PER_TRANSACTION) {
    const last = Math.min(options.count, first + CONVERSATIONS_PER_TRANSACTION);
    const conversations: ConversationInsert[] = [];
    const messages: MessageInsert[] = [];
    const deltas: Record<string, number> = {};
    const invitations = new Map<string, number>();
    const add = (name: string) => {
      deltas[name] = (deltas[name] ?? 0) + 1;
    };
    for (let index = first; index < last; index += 1) {
      const built = buildConversation(index, options.count, now);
      conversations.push(built.conversation);
      messages.push(...built.messages);
      add(counterName.conversations);
      add(counterName.status(built.conversation.status));
      add(counterName.label(built.conversation.review_label));
      if (built.conversation.unread_count > 0) add(counterName.unreadThreads);
      const invitation = built.conversation.invitation_id;
      if (invitation) invitations.set(invitation, (invitations.get(invitation) ?? 0) + 1);
    }
    await store.db.transaction().execute(async (trx) => {
      await insertInChunks(trx, 'conversations', conversations, CONVERSATION_ROWS_PER_INSERT);
      await insertInChunks(trx, 'messages', messages, MESSAGE_ROWS_PER_INSERT);
      await bumpCounters(trx, deltas);
      for (const [invitation, delta] of invitations) await bumpInvitationCount(trx, invitation, delta);
      // As the writer does before each COMMIT. Left pending, the rows were all indexed by the next
      // start, and the checkpoint of that index (hundreds of MB at 1,000,000 conversations) then ran
      // through the benchmark's measurements.
      if (store.dialect === 'sqlite') await flushSearchIndex(trx);
    });
    messageTotal += messages.length;
    options.progress?.(last);
  }
  return { conversations: options.count, messages: messageTotal, milliseconds: performance.now() - started };
}

function countOption(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_SEED_COUNT;
  const count = Number(raw);
  if (!Number.isInteger(count) || count < 1 || count > MAX_SEED_COUNT) {
    throw new ConfigError('--count / SEED_COUNT', `must be a whole number from 1 to ${MAX_SEED_COUNT}, got "${raw}"`);
  }
  return count;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { count: { type: 'string', short: 'n' } } });
  let count: number;
  let config;
  try {
    // The .env file first: SEED_COUNT may come from it too.
    config = readSettings();
    count = countOption(values.count ?? process.env.SEED_COUNT);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`seed: ${error.message}`);
      process.exit(1);
    }
    throw error;
  }
  const store = openStore({ ...config, beforeCommit: [flushSearchIndex] });
  try {
    await migrate(store);
    const where = store.dialect === 'sqlite' ? `SQLite in ${config.dataDir}` : 'PostgreSQL (DATABASE_URL)';
    console.log(`Seeding ${count} conversations into ${where}...`);
    const result = await seedStore(store, {
      count,
      progress: (done) => {
        if (done % 25_000 === 0 || done === count) console.log(`  ${done} / ${count}`);
      },
    });
    const seconds = (result.milliseconds / 1000).toFixed(1);
    console.log(`Seeded ${result.conversations} conversations and ${result.messages} messages in ${seconds} s.`);
  } finally {
    await store.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
