/**
 * The SQLite ceiling of issue #34 (target 3): a server that does a follow-up's durable write and
 * nothing else, so Parley's follow-up can be compared with what this stack does here. It is bare
 * Fastify, as the baseline is: Parley runs on Fastify, and the framework's cost is already what the
 * ratio to the baseline shows; against this server the ratio shows what Parley adds on top of the
 * framework and the write (validation, its token cache, retries, changes, wake-ups).
 *
 * The write is Parley's own store, imported, not copied: better-sqlite3 with its statement cache,
 * the group commit with one savepoint per command, the WAL synced off the event loop before any
 * answer, checkpoints on a worker, and the search index's flush before each COMMIT. The statements
 * are the follow-up's, as Parley sends them (the slot claim, the message, the limit charge; the retry
 * key is looked up only when the message's unique index refuses a repeat), as raw SQL with nothing
 * built per request. The schema is Parley's, migrated.
 *
 * Environment: PORT, DATA_DIR (an empty directory), LOG_LEVEL, CEILING_CONVERSATIONS (how many
 * conversations to create for follow-ups, named by ceilingConversation in bench/client.ts).
 */
import Fastify from 'fastify';
import { CompiledQuery, type Kysely } from 'kysely';
import { previewOf } from '../src/inbox/preview.ts';
import { flushSearchIndex } from '../src/inbox/search-index.ts';
import { loggerOptions } from '../src/logging.ts';
import { migrate } from '../src/store/migrate.ts';
import { isUniqueViolation } from '../src/store/errors.ts';
import { openStore } from '../src/store/open-store.ts';
import type { Database } from '../src/store/schema.ts';
import { hashToken, newId } from '../src/tokens.ts';
import { CEILING_MAX_MESSAGES, ceilingConversation } from './client.ts';

const RAISED_LIMIT = 100_000_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// The load generator's address as Parley keys it: one source, one pair of limit rows, as in Parley's run.
const SOURCE = 'ceiling-source';
const SOURCE_WIDE = 'ceiling-source-wide';

const RETRY_LOOKUP = 'select "id", "body" from "messages" where "conversation_id" = ? and "role" = ? and "client_message_id" = ?';
const CLAIM_SLOT =
  'update "conversations" set "message_count" = "message_count" + ?, "unread_count" = "unread_count" + ?, "revision" = "revision" + ?, ' +
  '"updated_at" = case when "updated_at" > ? then "updated_at" else ? end, "last_message_at" = case when "last_message_at" > ? then "last_message_at" else ? end, ' +
  '"last_message_preview" = ?, "last_message_role" = ?, "snoozed_until" = ? where "id" = ? and "status" = ? and "message_count" < ? and "token_hash" = ? ' +
  'and "token_revoked_at" is null and ("blocked_until" is null or "blocked_until" <= ?) and not exists (select 1 from blocks where blocks.subject_key in ' +
  '(?, ?, "conversations"."source", "conversations"."source_wide") and (blocks.expires_at is null or blocks.expires_at > cast(? as bigint))) returning "unread_count"';
const INSERT_MESSAGE =
  'insert into "messages" ("id", "conversation_id", "role", "body", "client_message_id", "created_at", "verified_origin", "seen_at") values (?, ?, ?, ?, ?, ?, ?, ?)';
const CHARGE_LIMIT =
  'insert into "limit_counters" ("bucket", "count", "expires_at") values (?, ?, ?), (?, ?, ?) on conflict ("bucket") do update set ' +
  '"count" = case when limit_counters.expires_at <= cast(? as bigint) then 1 else limit_counters.count + 1 end, ' +
  '"expires_at" = case when limit_counters.expires_at <= cast(? as bigint) then excluded.expires_at else limit_counters.expires_at end ' +
  'where limit_counters.expires_at <= cast(? as bigint) or limit_counters.count < case limit_counters.bucket when ? then cast(? as bigint) when ? then cast(? as bigint) end ' +
  'returning "limit_counters"."bucket"';
const CREATE_CONVERSATION =
  'insert into "conversations" ("id", "token_hash", "fingerprint", "name", "invitation_id", "status", "review_label", "operator_note", "created_at", "updated_at", ' +
  '"last_message_at", "message_count", "unread_count", "revision", "last_message_preview", "last_message_role", "source", "source_wide", "verified_origin") ' +
  'values (?, ?, ?, ?, null, ?, ?, ?, ?, ?, ?, 1, 1, 1, ?, ?, ?, ?, null)';

interface FollowUp {
  conversationId: string;
  tokenHash: string;
  message: string;
  clientMessageId: string;
  now: number;
}

type Written = { messageId: string; duplicate: boolean } | undefined;

async function followUp(trx: Kysely<Database>, input: FollowUp): Promise<Written> {
  const { conversationId, tokenHash, message, clientMessageId, now } = input;
  const claimed = await trx.executeQuery(
    CompiledQuery.raw(CLAIM_SLOT, [1, 1, 1, now, now, now, now, previewOf(message), 'visitor', null, conversationId, 'open', CEILING_MAX_MESSAGES, tokenHash, now, SOURCE, SOURCE_WIDE, now]),
  );
  if (claimed.rows.length === 0) return undefined;
  const messageId = newId();
  await trx.executeQuery(CompiledQuery.raw(INSERT_MESSAGE, [messageId, conversationId, 'visitor', message, clientMessageId, now, null, null]));
  const hourly = `FOLLOWUP_SOURCE:3600:${SOURCE}`;
  const daily = `FOLLOWUP_SOURCE:86400:${SOURCE}`;
  await trx.executeQuery(
    CompiledQuery.raw(CHARGE_LIMIT, [hourly, 1, now + HOUR_MS, daily, 1, now + DAY_MS, now, now, now, hourly, RAISED_LIMIT, daily, RAISED_LIMIT]),
  );
  return { messageId, duplicate: false };
}

async function createConversations(trx: Kysely<Database>, count: number): Promise<void> {
  const now = Date.now();
  for (let index = 0; index < count; index += 1) {
    const { id, token } = ceilingConversation(index);
    const parameters = [id, hashToken(token), 'ceiling', 'Bench agent', 'open', 'unreviewed', '', now, now, now, 'Benchmark conversation.', 'visitor', SOURCE, SOURCE_WIDE];
    await trx.executeQuery(CompiledQuery.raw(CREATE_CONVERSATION, parameters));
  }
}

const store = openStore({ dataDir: process.env.DATA_DIR!, beforeCommit: [flushSearchIndex] });
await migrate(store);
await store.write(createConversations, Number(process.env.CEILING_CONVERSATIONS ?? 0));

const app = Fastify({ logger: loggerOptions(process.env.LOG_LEVEL ?? 'warn') });
app.get('/ready', async () => ({ status: 'ready' }));
app.post<{ Params: { id: string }; Body: { message: string; client_message_id: string } }>('/api/conversations/:id/messages', async (request, reply) => {
  const token = request.headers.authorization?.slice('Bearer '.length) ?? '';
  const { id } = request.params;
  const input = { conversationId: id, tokenHash: hashToken(token), message: request.body.message, clientMessageId: request.body.client_message_id, now: Date.now() };
  const written = await store.write(followUp, input).catch(async (error: unknown) => {
    if (!isUniqueViolation(error)) throw error;
    const earlier = await store.db.executeQuery<{ id: string }>(CompiledQuery.raw(RETRY_LOOKUP, [id, 'visitor', input.clientMessageId]));
    return earlier.rows[0] ? { messageId: earlier.rows[0].id, duplicate: true } : undefined;
  });
  if (!written) return reply.code(409).send({ error: 'no room in this conversation', code: 'conflict' });
  return reply.code(201).send({ ok: true, conversation_id: id, message_id: written.messageId, duplicate: written.duplicate });
});

const shutdown = async () => {
  await app.close();
  await store.close();
  process.exit(0);
};
process.once('SIGTERM', shutdown);
process.once('SIGINT', shutdown);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
