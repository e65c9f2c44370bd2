import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flushSearchIndex } from '../../src/inbox/search-index.ts';
import { migrate, migrator } from '../../src/store/migrate.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { newId } from '../../src/tokens.ts';
import { TEST_STORE } from '../helpers.ts';
import { postgresRun } from '../postgres/app-databases.ts';
import { freshDatabase } from '../postgres/databases.ts';

/** Migration 0018 on a store that has reminders already: each kept with its conversation, none left for one gone. */
describe('migration 0018: reminder rows go with their conversation', () => {
  let store: Store;
  let cleanUp: () => Promise<void>;

  beforeAll(async () => {
    if (TEST_STORE === 'postgres') {
      const database = await freshDatabase(postgresRun().runId, 'reminder-cascade', postgresRun().adminUrl);
      store = openStore({ dataDir: tmpdir(), databaseUrl: database.url, beforeCommit: [flushSearchIndex] });
      cleanUp = () => database.drop();
    } else {
      const dataDir = mkdtempSync(path.join(tmpdir(), 'parley-0018-'));
      store = openStore({ dataDir, beforeCommit: [flushSearchIndex] });
      cleanUp = async () => rmSync(dataDir, { recursive: true, force: true });
    }
  });
  afterAll(async () => {
    await store?.close();
    await cleanUp?.();
  });

  it('carries the rows of conversations still there, drops the others, then deletes with the conversation', async () => {
    const { error } = await migrator(store.db).migrateTo('0017_snooze');
    expect(error).toBeUndefined();
    const conversationId = newId();
    const gone = newId();
    await store.db
      .insertInto('conversations')
      .values({
        id: conversationId,
        token_hash: 'hash-of-a-token',
        fingerprint: 'fingerprint',
        name: 'Visitor',
        invitation_id: null,
        status: 'open',
        review_label: 'unreviewed',
        operator_note: '',
        created_at: 1,
        updated_at: 1,
        last_message_at: 1,
        message_count: 1,
        unread_count: 1,
        revision: 1,
      })
      .execute();
    await store.db
      .insertInto('alert_reminders')
      .values([
        { conversation_id: conversationId, waiting_since: 1 },
        { conversation_id: gone, waiting_since: 1 },
      ])
      .execute();

    await migrate(store);
    const kept = async () => (await store.db.selectFrom('alert_reminders').selectAll().execute()).map((row) => [row.conversation_id, Number(row.waiting_since)]);
    expect(await kept()).toEqual([[conversationId, 1]]);
    await store.db.deleteFrom('conversations').where('id', '=', conversationId).execute();
    expect(await kept()).toEqual([]);
  });
});
