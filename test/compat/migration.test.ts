import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate, migrator } from '../../src/store/migrate.ts';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { TEST_STORE } from '../helpers.ts';
import { postgresRun } from '../postgres/app-databases.ts';
import { freshDatabase } from '../postgres/databases.ts';

/* COMPAT §2: migration 0005_peer_presence gives agents registered before it a presence and an updated_at. */

let store: Store;
let cleanUp: () => Promise<void>;

beforeAll(async () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-compat-migrate-'));
  const database = TEST_STORE === 'postgres' ? await freshDatabase(postgresRun().runId, 'compat', postgresRun().adminUrl) : undefined;
  store = openStore({ dataDir, ...(database && { databaseUrl: database.url }), beforeCommit: [flushSearchIndex] });
  cleanUp = async () => {
    await store.close();
    await database?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
});
afterAll(async () => cleanUp?.());

describe('migration 0005_peer_presence', () => {
  it('reads existing agents as registered at their creation: offline, accepting unless revoked, updated when created', async () => {
    const { error } = await migrator(store.db).migrateTo('0004_change_counter');
    expect(error).toBeUndefined();
    const agent = (id: string, revokedAt: number | null) => ({
      id,
      display_name: `Agent ${id.slice(-1)}`,
      description: '',
      identity: '{}',
      discoverable: 1,
      token_hash: `hash-${id}`,
      fingerprint: 'f',
      revoked_at: revokedAt,
      created_at: 1_700_000_000_000,
    });
    const active = '01890a5d-ac96-774b-bcce-b30209900001';
    const revoked = '01890a5d-ac96-774b-bcce-b30209900002';
    // The table as 0002 made it: the columns 0005 adds do not exist yet.
    await store.db.insertInto('peer_agents').values([agent(active, null), agent(revoked, 1_700_000_500_000)] as never).execute();

    await migrate(store);
    const rows = await store.db
      .selectFrom('peer_agents')
      .select(['id', 'presence_status', 'presence_topics', 'presence_languages', 'accepts_new_threads', 'presence_updated_at', 'updated_at', 'referral_id'])
      .orderBy('id')
      .execute();
    const common = { presence_status: 'offline', presence_topics: '[]', presence_languages: '[]', presence_updated_at: 1_700_000_000_000, updated_at: 1_700_000_000_000, referral_id: null };
    expect(rows.map((row) => ({ ...row, presence_updated_at: Number(row.presence_updated_at), updated_at: Number(row.updated_at) }))).toEqual([
      { id: active, ...common, accepts_new_threads: 1 },
      { id: revoked, ...common, accepts_new_threads: 0 },
    ]);
    expect(await store.db.selectFrom('referral_counters').selectAll().execute()).toEqual([]);
    expect(await store.db.selectFrom('referral_totals').selectAll().execute()).toEqual([]);
  });
});
