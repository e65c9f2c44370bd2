/**
 * Seeds a migrated PostgreSQL database with `count` conversations in a few set-based statements
 * (INSERT ... SELECT over generate_series), with the shape scripts/seed.ts gives SQLite: the same
 * mix of statuses, labels, invitation ids and names, one to five messages each with their unread
 * and seen markers, the list's preview of the last message, and the overview's counters. Row by row
 * through Kysely, a million conversations took far longer than the bench's bound here.
 *
 * The secondary indexes and the foreign keys are dropped before the inserts and made again from
 * their own definitions after them (one sort or one join each instead of a check or an index
 * insertion per row); the tables are then vacuumed
 * and analysed, as autovacuum would have left a store that grew over months, and a checkpoint
 * writes it all out, so none of it runs during the measurements.
 */
import type pg from 'pg';
import { PREVIEW_LENGTH } from '../src/inbox/preview.ts';
import { REVIEW_LABELS } from '../src/inbox/schemas.ts';

/** Bump when the shape of the seeded rows changes: the cached seeded databases key on it. */
export const POSTGRES_SEED_VERSION = 1;

const SPAN_MS = 90 * 86_400_000;
const MINUTE_MS = 60_000;
const INVITATION_IDS = 40;
const FILLER =
  'We are an automated research agent testing first-contact etiquette. This message was seeded for a benchmark, ' +
  'so it carries no real content; it only has the length of an ordinary note between an agent and an operator. ' +
  'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore.';
const SEEDED_TABLES = ['conversations', 'messages'];

const REVIEWED_LABELS = REVIEW_LABELS.filter((label) => label !== 'unreviewed');
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const textArray = (values: readonly string[]) => `array[${values.map(literal).join(', ')}]::text[]`;

// A fixed, well-mixed number in [0, 1) of (conversation, salt): varied data, the same on every seed.
const FRACTION = `create function pg_temp.seed_fraction(n bigint, salt int) returns float8 language sql immutable parallel safe
  as $$ select (hashint8(n * 1000 + salt)::float8 + 2147483648) / 4294967296 $$`;

// A time-ordered id (UUIDv7 layout) at `ms`, unique by (n, part).
const uuidAt = (ms: string, n: string, part: string) =>
  `(lpad(to_hex(${ms}), 12, '0') || '7' || lpad(to_hex(${part}), 3, '0') || '8' || lpad(to_hex(${n}), 15, '0'))::uuid`;

function planStatement(count: number, now: number): string {
  const f = (salt: number) => `pg_temp.seed_fraction(n, ${salt})`;
  return `create temp table seed_plan as
    select n, status, review_label, invitation_id, name, created_at, message_count, operator_behind, admin_unseen, noted,
      coalesce((select max(p) from generate_series(1, message_count - 1) p where pg_temp.seed_fraction(n, 20 + p) < 1.0 / 3), -1) as last_admin
    from (
      select n,
        case when ${f(1)} < 0.7 then 'open' when ${f(1)} < 0.9 then 'closed' else 'spam' end as status,
        case when ${f(2)} < 0.55 then 'unreviewed'
          else (${textArray(REVIEWED_LABELS)})[1 + floor((${f(2)} - 0.55) / 0.45 * ${REVIEWED_LABELS.length})::int] end as review_label,
        case when ${f(3)} < 0.35 then 'seed-invitation-' || lpad((1 + floor(${f(4)} ^ 2 * ${INVITATION_IDS}))::text, 2, '0') end as invitation_id,
        case when ${f(5)} < 0.3 then 'Anonymous' else 'Seed agent ' || n end as name,
        ${now - SPAN_MS - 60 * MINUTE_MS}::bigint + (n * ${SPAN_MS}::bigint) / ${count} as created_at,
        1 + floor(${f(6)} * 5)::int as message_count,
        ${f(7)} < 0.4 as operator_behind,
        ${f(8)} < 0.5 as admin_unseen,
        ${f(9)} < 0.1 as noted
      from generate_series(0, ${count - 1}::bigint) n
    ) drawn`;
}

/** The messages of every planned conversation, position p from 0; the admin's are those after the first whose draw falls under a third. */
const MESSAGES_STATEMENT = `create temp table seed_messages as
  select c.n, p,
    case when p > 0 and pg_temp.seed_fraction(c.n, 20 + p) < 1.0 / 3 then 'admin' else 'visitor' end as role,
    c.created_at + p * ${7 * MINUTE_MS} as created_at,
    'Seeded message ' || (p + 1) || ' of conversation ' || c.n || '. ' || left(${literal(FILLER)}, 40 + floor(pg_temp.seed_fraction(c.n, 10 + p) * ${FILLER.length - 40})::int) as body,
    c.last_admin, c.operator_behind, c.admin_unseen, c.message_count
  from seed_plan c cross join lateral generate_series(0, c.message_count - 1) p`;

const INSERT_CONVERSATIONS = (salt: string) => `insert into conversations (id, token_hash, fingerprint, name, invitation_id, status, review_label, operator_note,
    created_at, updated_at, last_message_at, message_count, unread_count, revision, last_message_preview, last_message_role)
  select ${uuidAt('c.created_at', 'c.n', '0')},
    encode(sha256(convert_to(${literal(salt)} || ':token:' || c.n, 'UTF8')), 'hex'),
    encode(sha256(convert_to(${literal(salt)} || ':fingerprint:' || c.n, 'UTF8')), 'hex'),
    c.name, c.invitation_id, c.status, c.review_label, case when c.noted then 'Seeded operator note.' else '' end,
    c.created_at,
    last.created_at + case when c.status = 'open' then 0 else ${30 * MINUTE_MS} end,
    last.created_at, c.message_count,
    case when c.operator_behind then c.message_count - 1 - c.last_admin else 0 end,
    c.message_count + case when c.status = 'open' then 0 else 1 end,
    left(last.body, ${PREVIEW_LENGTH}), last.role
  from seed_plan c join seed_messages last on last.n = c.n and last.p = c.message_count - 1`;

const INSERT_MESSAGES = `insert into messages (id, conversation_id, role, body, client_message_id, created_at, seen_at)
  select ${uuidAt('m.created_at', 'm.n', '1 + m.p')}, ${uuidAt('c.created_at', 'm.n', '0')}, m.role, m.body,
    case when m.p = 0 then null else 'seed-' || m.n || '-' || m.p end,
    m.created_at,
    case when m.role = 'visitor' and m.p > m.last_admin and m.operator_behind then null
         when m.role = 'admin' and m.p = m.message_count - 1 and m.admin_unseen then null
         else m.created_at + ${2 * MINUTE_MS} end
  from seed_messages m join seed_plan c on c.n = m.n`;

// The overview's counters, in their first shard (the counter's own name), as scripts/seed.ts bumps them.
const INSERT_COUNTERS = `insert into inbox_counters (name, value)
  select name, sum(value) from (
    select 'conversations' as name, count(*) as value from seed_plan
    union all select 'status:' || status, count(*) from seed_plan group by status
    union all select 'label:' || review_label, count(*) from seed_plan group by review_label
    union all select 'unread_threads', count(*) from seed_plan where operator_behind and message_count - 1 - last_admin > 0
  ) counted group by name
  on conflict (name) do update set value = inbox_counters.value + excluded.value`;

const INSERT_INVITATION_COUNTS = `insert into invitation_counts (invitation_id, count)
  select invitation_id, count(*) from seed_plan where invitation_id is not null group by invitation_id
  on conflict (invitation_id) do update set count = invitation_counts.count + excluded.count`;

/** The foreign keys of the seeded tables, with their definitions: checked once for all rows when added back, not row by row. */
async function foreignKeys(client: pg.Client): Promise<{ table: string; name: string; definition: string }[]> {
  const { rows } = await client.query<{ table: string; name: string; definition: string }>(
    `select conrelid::regclass::text as table, conname as name, pg_get_constraintdef(oid) as definition
     from pg_constraint where contype = 'f' and conrelid::regclass::text = any($1)`,
    [SEEDED_TABLES],
  );
  return rows;
}

/** The indexes of the seeded tables that back no constraint, with the statements that make them. */
async function secondaryIndexes(client: pg.Client): Promise<{ name: string; definition: string }[]> {
  const { rows } = await client.query<{ name: string; definition: string }>(
    `select indexname as name, indexdef as definition from pg_indexes i
     where schemaname = 'public' and tablename = any($1)
       and not exists (select 1 from pg_constraint c where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)`,
    [SEEDED_TABLES],
  );
  return rows;
}

export interface PostgresSeedResult {
  conversations: number;
  messages: number;
  seconds: number;
}

/** Seeds `count` conversations into the migrated database `client` is connected to. */
export async function seedPostgres(client: pg.Client, count: number, now: number, log: (line: string) => void): Promise<PostgresSeedResult> {
  const started = performance.now();
  const step = async (what: string, statement: string) => {
    const at = performance.now();
    const result = await client.query(statement);
    log(`  ${what}: ${((performance.now() - at) / 1000).toFixed(1)} s`);
    return result;
  };
  const salt = `${now}`;
  await client.query(FRACTION);
  await client.query('set maintenance_work_mem = \'256MB\'');
  await client.query('begin');
  await step('plan', planStatement(count, now));
  await step('messages planned', MESSAGES_STATEMENT);
  await client.query('create index on seed_messages (n, p)');
  const indexes = await secondaryIndexes(client);
  const keys = await foreignKeys(client);
  for (const { name } of indexes) await client.query(`drop index "${name}"`);
  for (const { table, name } of keys) await client.query(`alter table "${table}" drop constraint "${name}"`);
  await step('conversations', INSERT_CONVERSATIONS(salt));
  const inserted = await step('messages', INSERT_MESSAGES);
  await step('counters', `${INSERT_COUNTERS}; ${INSERT_INVITATION_COUNTS}`);
  for (const { name, definition } of indexes) await step(`index ${name}`, definition);
  for (const { table, name, definition } of keys) await step(`foreign key ${name}`, `alter table "${table}" add constraint "${name}" ${definition}`);
  await client.query('drop table seed_plan, seed_messages');
  await client.query('commit');
  await step('vacuum analyze', `vacuum (analyze) ${SEEDED_TABLES.join(', ')}`);
  await step('checkpoint', 'checkpoint');
  return { conversations: count, messages: inserted.rowCount ?? 0, seconds: (performance.now() - started) / 1000 };
}
