import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { adminHeaders, bearer, startApp, type TestApp } from '../helpers.ts';
import { freshDatabase, newRunId, unreachableReason } from '../postgres/databases.ts';
import { categoryRows, exportText, LOBBY, migrationRows, MIGRATIONS, newReferenceToken, referenceHash, SYSTEM_AGENT, type Tables } from './reference-export.ts';
import { runCli, temporaryDirs } from './run-cli.ts';

const ci = process.env.CI === 'true' || process.env.CI === '1';
// Outside CI a PostgreSQL that does not answer skips its case, as the postgres project does.
const postgresDown = ci ? undefined : await unreachableReason();

const ids = {
  open: '6f1d2c3b-4a59-4e6f-8a1b-2c3d4e5f6071',
  closed: '7a2b3c4d-5e6f-4a1b-9c2d-3e4f5a6b7c8d',
  spam: '8b3c4d5e-6f7a-4b2c-8d3e-4f5a6b7c8d9e',
  agent: 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d',
  revoked: 'b2c3d4e5-f6a7-4b8c-9d0e-1f2a3b4c5d6e',
  topic: 'c3d4e5f6-a7b8-4c9d-8e0f-1a2b3c4d5e6f',
  unlisted: 'd4e5f6a7-b8c9-4d0e-9f1a-2b3c4d5e6f7a',
  announcement: 'e5f6a7b8-c9d0-4e1f-8a2b-3c4d5e6f7a8b',
};
const tokens = { visitor: newReferenceToken(), agent: newReferenceToken(), member: newReferenceToken() };
const firstMessage = 'Hello; it\'s me.\nA second line, and a "quote".';
const fingerprint = (name: string, invitation: string | null, message: string) => createHash('sha256').update(JSON.stringify([name, invitation, message])).digest('hex');
const at = (minute: number) => `2026-11-20T10:${String(minute).padStart(2, '0')}:00.${String(minute).padStart(3, '0')}Z`;
const uuid = (n: number) => `0000${n.toString(16).padStart(4, '0')}-1111-4222-8333-444455556666`;

/** One of everything the import brings, as a v1.5 reference database holds it. */
function referenceTables(): Tables {
  const conversation = (id: string, status: string, label: string, visitorCount: number, seen: number, extra: Record<string, string | number | null> = {}) => ({
    id, secret_hash: referenceHash(id === ids.open ? tokens.visitor : newReferenceToken()), name: 'Anonymous', invitation_id: null, status, created_at: at(1), updated_at: at(5),
    visitor_message_count: visitorCount, seen_visitor_count: seen, initial_request_hash: null, review_label: label, operator_note: '', ...extra,
  });
  const agent = (id: string, token: string, extra: Record<string, string | number | null>) => ({
    id, secret_hash: referenceHash(token), display_name: 'Rusty', description: 'Writes Rust', identity_json: '{"model_name":"Claude","capabilities":["http","code"]}', discoverable: 1, status: 'active', initial_request_hash: null,
    created_at: at(2), updated_at: at(2), presence_status: 'available', topics_json: '["Rust","WASM"]', languages_json: '["en"]', accepts_new_threads: 1, presence_updated_at: at(2), referral_id: 'ref-1', revoked_at: null, ...extra,
  });
  const thread = (id: string, title: string, category: string, creator: string, extra: Record<string, string | number | null> = {}) => ({
    id, title, topic: `About ${title}`, visibility: 'listed', status: 'open', created_by_agent_id: creator, initial_request_hash: null, message_count: 0, created_at: at(3), updated_at: at(6),
    thread_kind: 'standard', closed_at: null, forum_category: category, posting_mode: 'participants', operator_readable: 1, ...extra,
  });
  const member = (thread: string, agentId: string, token: string, status = 'active') => ({ thread_id: thread, agent_id: agentId, secret_hash: referenceHash(token), status, joined_at: at(3), last_seen_at: at(6) });
  const post = (n: number, thread: string, sender: string, body: string, minute: number) => ({ id: uuid(n), thread_id: thread, sender_agent_id: sender, body, client_message_id: null, created_at: at(minute) });
  return {
    d1_migrations: migrationRows(),
    conversations: [
      conversation(ids.open, 'open', 'human_contact', 2, 1, { name: 'Ada', invitation_id: 'PARTNER-1', initial_request_hash: fingerprint('Ada', 'PARTNER-1', firstMessage), operator_note: 'it\'s fine' }),
      conversation(ids.closed, 'closed', 'unreviewed', 1, 1),
      conversation(ids.spam, 'spam', 'other', 1, 0, { invitation_id: 'PARTNER-1' }),
    ],
    // Out of time order in the file, and with random ids: the import orders them by time.
    messages: [
      { id: uuid(3), conversation_id: ids.open, role: 'visitor', body: 'A follow-up\r\nwith CRLF', created_at: at(5), client_message_id: 'follow-up-1' },
      { id: uuid(1), conversation_id: ids.open, role: 'visitor', body: firstMessage, created_at: at(1), client_message_id: null },
      { id: uuid(2), conversation_id: ids.open, role: 'admin', body: 'Welcome', created_at: at(4), client_message_id: null },
      { id: uuid(4), conversation_id: ids.closed, role: 'visitor', body: 'Bye', created_at: at(1), client_message_id: null },
      { id: uuid(5), conversation_id: ids.spam, role: 'visitor', body: 'Buy now', created_at: at(1), client_message_id: null },
    ],
    rate_limits: [{ key: 'global:new:10m:1', hits: 3, expires_at: 1795000000 }],
    peer_agents: [
      { ...agent(SYSTEM_AGENT, newReferenceToken(), { display_name: 'Moderator', presence_status: 'offline', topics_json: '[]', languages_json: '[]', referral_id: null }), created_at: '2026-10-01T22:00:00Z', updated_at: '2026-10-01T22:00:00Z', presence_updated_at: null },
      agent(ids.agent, tokens.agent, {}),
      agent(ids.revoked, newReferenceToken(), { display_name: 'Gone', status: 'revoked', discoverable: 0, presence_status: 'offline', accepts_new_threads: 0, revoked_at: at(7), referral_id: null }),
    ],
    peer_threads: [
      thread(LOBBY, 'Lobby', 'lobby', SYSTEM_AGENT, { thread_kind: 'lobby', created_at: '2026-10-01T22:00:00Z' }),
      thread(ids.topic, 'Rust and WASM', 'general', ids.agent),
      thread(ids.unlisted, 'Private experiment', 'research', ids.agent, { visibility: 'unlisted' }),
      thread(ids.announcement, 'Welcome', 'announcements', SYSTEM_AGENT, { posting_mode: 'moderator_only' }),
    ],
    peer_thread_members: [
      member(LOBBY, ids.agent, newReferenceToken()),
      member(ids.topic, ids.agent, tokens.member),
      member(ids.topic, ids.revoked, newReferenceToken(), 'left'),
      member(ids.unlisted, ids.agent, newReferenceToken()),
    ],
    peer_messages: [
      post(12, ids.topic, ids.revoked, 'Second post', 5),
      post(11, ids.topic, ids.agent, 'First post;\nwith a line break', 4),
      post(13, LOBBY, ids.agent, 'Hello lobby', 4),
      post(14, ids.announcement, SYSTEM_AGENT, 'Be kind', 3),
    ],
    peer_owner_bridge_messages: [
      { id: uuid(21), thread_id: ids.topic, agent_id: ids.agent, role: 'agent', body: 'To the owner', client_message_id: null, seen_by_owner: 0, created_at: at(5) },
      { id: uuid(22), thread_id: ids.topic, agent_id: ids.agent, role: 'owner', body: 'Noted', client_message_id: null, seen_by_owner: 1, created_at: at(6) },
    ],
    forum_categories: categoryRows(),
  };
}

describe('parley import-reference', () => {
  const dirs = temporaryDirs('parley-cli-import-');
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
    dirs.removeAll();
  });
  const exportFile = (tables: Tables) => {
    const file = path.join(dirs.make(), 'reference.sql');
    writeFileSync(file, exportText(tables));
    return file;
  };

  /** Imports through the CLI, then checks through the API, with the reference's own tokens, what an operator and its users see. */
  async function importAndCheck(store: Record<string, string>): Promise<void> {
    const file = exportFile(referenceTables());
    const dryRun = await runCli(['import-reference', '--dry-run', file], store, { timeoutMs: 60_000 });
    expect(dryRun.code, dryRun.stderr).toBe(0);
    expect(dryRun.stdout).toContain('Dry run, nothing written.');
    expect(dryRun.stdout).toContain('would import: 3 conversations, 5 messages, 2 agents, 3 topics, 4 memberships, 4 posts, 2 bridge messages.');

    const first = await runCli(['import-reference', file], store, { timeoutMs: 60_000 });
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('3 conversations, 5 messages, 2 agents, 3 topics, 4 memberships, 4 posts, 2 bridge messages.');
    const t = await startApp({ env: store });
    apps.push(t);

    // The visitor's token opens its conversation: messages in time order, line breaks and quotes intact.
    const read = await t.inject({ method: 'GET', url: `/api/conversations/${ids.open}`, headers: bearer(tokens.visitor) });
    expect(read.statusCode, read.body).toBe(200);
    const conversation = read.json<{ messages: { role: string; message?: string; body?: string }[] }>();
    expect(conversation.messages.map((message) => message.message ?? message.body)).toEqual([firstMessage, 'Welcome', 'A follow-up\r\nwith CRLF']);
    // Uppercase works too in Parley, and a retried follow-up is recognised by its client_message_id.
    const retried = await t.inject({ method: 'POST', url: `/api/conversations/${ids.open}/messages`, headers: bearer(tokens.visitor.toUpperCase()), payload: { message: 'A follow-up\r\nwith CRLF', client_message_id: 'follow-up-1' } });
    expect(retried.statusCode, retried.body).toBe(200);
    // The original first request, retried with its client token, is the same conversation.
    const again = await t.inject({ method: 'POST', url: '/api/conversations', payload: { name: 'Ada', invitation_id: 'PARTNER-1', message: firstMessage, client_access_token: tokens.visitor } });
    expect(again.json()).toMatchObject({ conversation_id: ids.open, duplicate: true });

    // The agent's token and its per-topic token work.
    expect((await t.inject({ method: 'POST', url: '/api/peers/presence', headers: bearer(tokens.agent), payload: { status: 'away' } })).statusCode).toBe(200);
    const reply = await t.inject({ method: 'POST', url: `/api/forum/topics/${ids.topic}/replies`, headers: bearer(tokens.member), payload: { message: 'After the move' } });
    expect(reply.statusCode, reply.body).toBe(201);
    const page = (await t.inject({ method: 'GET', url: `/api/forum/topics/${ids.topic}` })).json<{ topic: Record<string, unknown>; messages: { message: string; sender_display_name: string }[] }>();
    expect(page.topic).toMatchObject({ member_count: 1, message_count: 3, created_by: 'Rusty' });
    expect(page.messages.map((message) => message.message)).toEqual(['First post;\nwith a line break', 'Second post', 'After the move']);

    // The operator's search finds imported text at once (SQLite indexes it before the import's commit).
    const found = (await t.inject({ method: 'GET', url: '/api/admin/conversations?q=CRLF', headers: adminHeaders() })).json<{ conversations: { id?: string; conversation_id?: string }[] }>();
    expect(found.conversations.map((row) => row.conversation_id ?? row.id)).toEqual([ids.open]);

    // Counters equal the rows: the overview, the categories, the lobby, the bridge.
    const overview = (await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() })).json<{ totals: Record<string, number>; labels: { label: string; count: number }[]; invitation_ids: unknown[] }>();
    expect(overview.totals).toMatchObject({ total_conversations: 3, unread_threads: 2, open: 1, closed: 1, spam: 1 });
    expect(overview.labels.filter((label) => label.count > 0)).toEqual(expect.arrayContaining([{ label: 'human_contact', count: 1 }, { label: 'unreviewed', count: 1 }, { label: 'other', count: 1 }]));
    expect(overview.invitation_ids).toEqual([{ id: 'PARTNER-1', count: 2 }]);
    const categories = (await t.inject({ method: 'GET', url: '/api/forum/categories' })).json<{ categories: { slug: string; topic_count: number }[] }>().categories;
    expect(Object.fromEntries(categories.map((category) => [category.slug, category.topic_count]))).toEqual({ announcements: 1, lobby: 1, general: 1, research: 0, help: 0 });
    const lobby = (await t.inject({ method: 'GET', url: `/api/forum/topics/${LOBBY}` })).json<{ topic: Record<string, unknown> }>();
    expect(lobby.topic).toMatchObject({ member_count: 1, message_count: 1 });
    const bridges = (await t.inject({ method: 'GET', url: '/api/admin/forum/bridges', headers: adminHeaders() })).json<{ bridges: Record<string, unknown>[] }>().bridges;
    expect(bridges).toEqual([expect.objectContaining({ topic_id: ids.topic, message_count: 2, unread_count: 1 })]);

    // Run twice: everything is already there, and nothing moves.
    const second = await runCli(['import-reference', file], store, { timeoutMs: 60_000 });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain('Imported from');
    expect(second.stdout).toContain(': 0 conversations, 0 messages, 0 agents, 0 topics, 0 memberships, 0 posts, 0 bridge messages.');
    expect(second.stdout).toContain('Already present, left as they are: 3 conversations, 5 messages, 2 agents, 4 topics, 4 memberships, 4 posts, 2 bridge messages.');
    const after = (await t.inject({ method: 'GET', url: '/api/admin/overview', headers: adminHeaders() })).json<{ totals: Record<string, number> }>();
    expect(after.totals).toEqual(overview.totals);
    expect((await t.inject({ method: 'GET', url: `/api/forum/topics/${ids.topic}` })).json<{ topic: Record<string, unknown> }>().topic).toMatchObject({ member_count: 1, message_count: 3 });
  }

  it('brings a v1.5 export into SQLite; the reference\'s tokens keep working and the counters are exact', async () => {
    await importAndCheck({ DATA_DIR: path.join(dirs.make(), 'data') });
  }, 120_000);

  it.skipIf(postgresDown !== undefined)('brings the same export into PostgreSQL', async () => {
    const database = await freshDatabase(newRunId(), 'import_reference');
    try {
      await importAndCheck({ DATABASE_URL: database.url });
    } finally {
      for (const app of apps.splice(0)) await app.close();
      await database.drop();
    }
  }, 120_000);

  it.each([
    ['a later reference version', [...MIGRATIONS, '0007_forum_reactions.sql'], /^parley import-reference: the export is of a reference version this Parley does not know \(migrations 0007_forum_reactions\.sql\)/],
    ['an older reference version', MIGRATIONS.slice(0, 4), /^parley import-reference: the export is of a reference older than v1\.5 \(migrations 0005_peer_operations_presence_referrals\.sql, 0006_agent_forum\.sql not applied\)/],
    ['no recorded version', [], /^parley import-reference: the export records no reference migrations/],
  ])('refuses %s in one line, writing nothing', async (_case, migrations, line) => {
    const dataDir = path.join(dirs.make(), 'data');
    const run = await runCli(['import-reference', exportFile({ ...referenceTables(), d1_migrations: migrationRows(migrations) })], { DATA_DIR: dataDir });
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(run.stderr).toMatch(line);
  });

  it.each([
    ['a statement it does not expect', (text: string) => text.replace('DELETE FROM sqlite_sequence;', 'DROP TABLE conversations;'), /line \d+: a statement starting with DROP/],
    ['a value that is not a literal', (text: string) => text.replace("'Welcome'", "lower('Welcome')"), /line \d+: unexpected value lower/],
    ['a row cut short', (text: string) => text.slice(0, text.indexOf('Hello lobby')), /line \d+: quoted text that never ends/],
  ])('refuses a file with %s, naming its line, and never runs it', async (_case, damage, problem) => {
    const file = exportFile(referenceTables());
    const { readFileSync } = await import('node:fs');
    writeFileSync(file, damage(readFileSync(file, 'utf8')));
    const run = await runCli(['import-reference', file], { DATA_DIR: path.join(dirs.make(), 'data') });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`^parley import-reference: .*reference\\.sql is not a wrangler d1 export of the reference: ${problem.source}`));
  });
});
