import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import { systemClock } from '../clock.ts';
import { seedForum } from '../forum/seed.ts';
import { insertTopic } from '../forum/topics/queries.ts';
import { bumpCounters, bumpInvitationCount, counterName } from '../inbox/overview-counters.ts';
import { migrate } from '../store/migrate.ts';
import { flushSearchIndex } from '../inbox/search-index.ts';
import { openStore } from '../store/open-store.ts';
import { laterOf } from '../store/later-of.ts';
import type { Database } from '../store/schema.ts';
import { refuse } from '../writes/write.ts';
import { DataDirBusy, DataDirLock } from './data-dir-lock.ts';
import { CliFailure } from './failure.ts';
import { ExportFormatError, readReferenceExport, type ReferenceExport } from './reference-export.ts';
import { importedRows, type ImportedRows } from './reference-rows.ts';
import { readSettings } from './settings.ts';
import { touchCategoryOf } from '../forum/categories.ts';

/** The reference's migrations that make its v1.5 schema, the one this command reads (REFERENCE-SCHEMA.md §1). */
export const REFERENCE_V1_5 = [
  '0001_initial.sql',
  '0002_unread_retries_notifications.sql',
  '0003_operator_review.sql',
  '0004_peer_communication.sql',
  '0005_peer_operations_presence_referrals.sql',
  '0006_agent_forum.sql',
];

/** Rows per INSERT statement, and ids per IN list: far below either store's limit on parameters. */
const CHUNK = 100;

const KINDS = ['conversations', 'messages', 'agents', 'topics', 'memberships', 'posts', 'bridge messages'] as const;
type Kind = (typeof KINDS)[number];
type Counts = Record<Kind, { imported: number; present: number }>;

/** Thrown at the end of a dry run, so that everything it wrote rolls back. */
class DryRunDone extends Error {
  constructor(readonly counts: Counts) {
    super('dry run');
  }
}

function checkVersion(reference: ReferenceExport): void {
  const names = (reference.tables.get('d1_migrations') ?? []).map((row) => String(row.name));
  if (names.length === 0) {
    throw new CliFailure('the export records no reference migrations (no d1_migrations rows), so its version is unknown: export the whole database with its schema (wrangler d1 export <database> --remote --output <file>)');
  }
  const unknown = names.filter((name) => !REFERENCE_V1_5.includes(name));
  if (unknown.length > 0) throw new CliFailure(`the export is of a reference version this Parley does not know (migrations ${unknown.join(', ')}); it imports v1.5 (migrations 0001 to 0006)`);
  const missing = REFERENCE_V1_5.filter((name) => !names.includes(name));
  if (missing.length > 0) throw new CliFailure(`the export is of a reference older than v1.5 (migrations ${missing.join(', ')} not applied); upgrade the reference to v1.5, then export again`);
}

const chunks = <T>(items: T[]) => Array.from({ length: Math.ceil(items.length / CHUNK) }, (_, index) => items.slice(index * CHUNK, (index + 1) * CHUNK));

/** Of `ids`, those `table` already holds. */
async function present(trx: Kysely<Database>, table: 'conversations' | 'messages' | 'peer_agents' | 'forum_topics' | 'forum_messages' | 'owner_bridge_messages', ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (const part of chunks(ids)) for (const row of await trx.selectFrom(table).select('id').where('id', 'in', part).execute()) found.add(row.id);
  return found;
}

/** Inserts the rows whose ids `table` does not hold yet; counts both. */
async function insertNew<Row extends { id: string }>(trx: Kysely<Database>, table: 'messages' | 'forum_messages' | 'owner_bridge_messages', rows: Row[], count: { imported: number; present: number }): Promise<Row[]> {
  const there = await present(trx, table, rows.map((row) => row.id));
  const fresh = rows.filter((row) => !there.has(row.id));
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- one helper for three tables whose rows the caller typed
  for (const part of chunks(fresh)) await trx.insertInto(table).values(part as any).execute();
  count.imported += fresh.length;
  count.present += there.size;
  return fresh;
}

async function importConversations(trx: Kysely<Database>, rows: ImportedRows, counts: Counts): Promise<void> {
  const there = await present(trx, 'conversations', rows.conversations.map(({ conversation }) => conversation.id));
  const deltas: Record<string, number> = {};
  const add = (name: string, delta: number) => (deltas[name] = (deltas[name] ?? 0) + delta);
  for (const { conversation, messages } of rows.conversations) {
    if (there.has(conversation.id)) {
      // A conversation is imported whole or not at all: its messages came with it.
      counts.conversations.present += 1;
      counts.messages.present += messages.length;
      continue;
    }
    await trx.insertInto('conversations').values(conversation).execute();
    await insertNew(trx, 'messages', messages, counts.messages);
    counts.conversations.imported += 1;
    add(counterName.conversations, 1);
    add(counterName.status(conversation.status), 1);
    add(counterName.label(conversation.review_label), 1);
    if (conversation.unread_count > 0) add(counterName.unreadThreads, 1);
    await bumpInvitationCount(trx, conversation.invitation_id ?? null, 1);
  }
  await bumpCounters(trx, deltas);
}

async function importAgents(trx: Kysely<Database>, rows: ImportedRows, counts: Counts): Promise<void> {
  const there = await present(trx, 'peer_agents', rows.agents.map((agent) => agent.id));
  const fresh = rows.agents.filter((agent) => !there.has(agent.id));
  for (const part of chunks(fresh)) await trx.insertInto('peer_agents').values(part).execute();
  counts.agents.imported += fresh.length;
  counts.agents.present += there.size;
}

/**
 * Topics new to Parley are made with no members and no posts, the lobby is Parley's own: both then
 * count the members and posts the import adds, as the forum's own writes count them.
 */
async function importTopics(trx: Kysely<Database>, rows: ImportedRows, counts: Counts): Promise<void> {
  const categories = new Set((await trx.selectFrom('forum_categories').select('slug').execute()).map((row) => row.slug));
  const there = await present(trx, 'forum_topics', rows.topics.map(({ topic }) => topic.id));
  for (const { topic, members, posts } of rows.topics) {
    if (!categories.has(topic.category)) throw new CliFailure(`the export's topic ${topic.id} is in the category "${topic.category}", which Parley does not have`);
    if (there.has(topic.id)) counts.topics.present += 1;
    else {
      await insertTopic(trx, { ...topic, member_count: 0, message_count: 0 });
      counts.topics.imported += 1;
    }
    const memberships = await trx.selectFrom('forum_members').select('agent_id').where('topic_id', '=', topic.id).execute();
    const joined = new Set(memberships.map((member) => member.agent_id));
    const newMembers = members.filter((member) => !joined.has(member.agent_id));
    for (const part of chunks(newMembers)) await trx.insertInto('forum_members').values(part).execute();
    counts.memberships.imported += newMembers.length;
    counts.memberships.present += members.length - newMembers.length;
    const newPosts = await insertNew(trx, 'forum_messages', posts, counts.posts);
    const activity = Math.max(topic.updated_at, ...newPosts.map((post) => post.created_at));
    await trx
      .updateTable('forum_topics')
      .set((eb) => ({
        member_count: eb('member_count', '+', newMembers.filter((member) => member.status === 'active').length),
        message_count: eb('message_count', '+', newPosts.length),
        posts_revision: eb('posts_revision', '+', newPosts.length),
        updated_at: laterOf('updated_at', activity),
      }))
      .where('id', '=', topic.id)
      .execute();
    await touchCategoryOf(trx, topic.id, activity).execute();
  }
}

async function importBridges(trx: Kysely<Database>, rows: ImportedRows, counts: Counts): Promise<void> {
  for (const { bridge, messages } of rows.bridges) {
    await trx.insertInto('owner_bridges').values({ ...bridge, message_count: 0, unread_count: 0 }).onConflict((conflict) => conflict.columns(['topic_id', 'agent_id']).doNothing()).execute();
    const fresh = await insertNew(trx, 'owner_bridge_messages', messages, counts['bridge messages']);
    await trx
      .updateTable('owner_bridges')
      .set((eb) => ({
        message_count: eb('message_count', '+', fresh.length),
        unread_count: eb('unread_count', '+', fresh.filter((message) => message.role === 'agent' && message.seen_at === null).length),
        last_message_at: laterOf('last_message_at', bridge.last_message_at),
      }))
      .where('topic_id', '=', bridge.topic_id)
      .where('agent_id', '=', bridge.agent_id)
      .execute();
  }
}

/** The whole import, in one transaction: rows already present (a second run) are counted and left as they are. */
async function importAll(trx: Kysely<Database>, input: { rows: ImportedRows; now: number; dryRun: boolean }): Promise<Counts> {
  const counts = Object.fromEntries(KINDS.map((kind) => [kind, { imported: 0, present: 0 }])) as Counts;
  // A store that never served has no categories and no lobby yet: the forum's own seeding makes them.
  await seedForum.run(trx, input.now, refuse);
  await importConversations(trx, input.rows, counts);
  await importAgents(trx, input.rows, counts);
  await importTopics(trx, input.rows, counts);
  await importBridges(trx, input.rows, counts);
  if (input.dryRun) throw new DryRunDone(counts);
  return counts;
}

const summary = (counts: Counts, which: 'imported' | 'present') => KINDS.map((kind) => `${counts[kind][which]} ${kind}`).join(', ');

/** `parley import-reference <file>`: the reference service's D1 export into this store. */
export async function importReference(file: string, options: { dryRun?: boolean }): Promise<void> {
  const config = readSettings();
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new CliFailure(`${file} cannot be read (${String((error as { code?: unknown }).code ?? 'error')})`);
  }
  let reference: ReferenceExport;
  try {
    reference = readReferenceExport(text);
  } catch (error) {
    if (error instanceof ExportFormatError) throw new CliFailure(`${file} is not a wrangler d1 export of the reference: ${error.message}`);
    throw error;
  }
  checkVersion(reference);
  const rows = importedRows(reference, config.forumModeratorName);
  let lock: DataDirLock | undefined;
  try {
    // Like a restore: many rows at once, with no server caching what they change meanwhile.
    if (!config.databaseUrl) lock = DataDirLock.exclusive(config.dataDir);
  } catch (error) {
    if (error instanceof DataDirBusy) throw new CliFailure(`a server (or a restore) uses ${config.dataDir}: stop every instance first`);
    throw error;
  }
  try {
    const store = openStore({ ...config, beforeCommit: [flushSearchIndex] });
    try {
      await migrate(store);
      const counts = await store.write(importAll, { rows, now: systemClock.now(), dryRun: options.dryRun === true });
      console.log(`Imported from ${file}: ${summary(counts, 'imported')}.`);
      console.log(`Already present, left as they are: ${summary(counts, 'present')}.`);
    } catch (error) {
      if (!(error instanceof DryRunDone)) throw error;
      console.log(`Dry run, nothing written. ${file} would import: ${summary(error.counts, 'imported')}.`);
      console.log(`Already present, would be left as they are: ${summary(error.counts, 'present')}.`);
    } finally {
      await store.close();
    }
  } finally {
    lock?.release();
  }
}
