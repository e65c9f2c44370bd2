import path from 'node:path';
import { CompiledQuery, Kysely, SqliteDialect } from 'kysely';
import { StoreHealth } from '../health.ts';
import type { Database } from '../schema.ts';
import { sentTogetherDialect } from '../sent-together.ts';
import { runBeforeCommit, type Store, type StoreOptions } from '../store.ts';
import { Checkpointer } from './checkpointer.ts';
import { DEFAULT_WRITE_QUEUE_LIMIT, GroupCommit } from './group-commit.ts';
import { openSqlite, SQLITE_FILE_NAME } from './open.ts';
import { withStatementCache } from './statement-cache.ts';
import { WalSync } from './wal-sync.ts';

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');

/** The store on the SQLite file in `options.dataDir`: one writer, whose commands commit in batches. */
export function openSqliteStore(options: StoreOptions): Store {
  const health = new StoreHealth();
  const sqlite = openSqlite(options.dataDir);
  // IMMEDIATE: a batch takes the write lock at its start. A batch may read before it writes (a retry's
  // key), and a deferred transaction that read would fail with SQLITE_BUSY_SNAPSHOT, not wait, when
  // another process on the same file committed in between.
  const db = new Kysely<Database>({ dialect: sentTogetherDialect(new SqliteDialect({ database: withStatementCache(sqlite) }), health, { begin: BEGIN_IMMEDIATE }) });
  const wal = new WalSync(path.join(options.dataDir, `${SQLITE_FILE_NAME}-wal`));
  const durable = () =>
    wal.sync().catch((error: unknown) => {
      health.noteError(error);
      throw error;
    });
  const checkpointer = new Checkpointer(path.join(options.dataDir, SQLITE_FILE_NAME), {
    onError: (error) => health.noteError(error),
    onLost: () => sqlite.pragma('wal_autocheckpoint = 1000'),
  });
  // A pragma that reads no page, run on the native handle (a query through Kysely costs ten times as
  // much). It still takes the WAL index's read lock, and the read cache and every cached list ask it
  // at each request, so it is read once per turn of the event loop (a visitor read fell from 102-108
  // to 85-86 µs of CPU). A client that saw another process acknowledge a commit sends its request
  // after it, and the request is read from its socket in a later poll, so in a turn whose first read
  // of the value follows the commit. (Past libuv's 1,024 ready events one poll polls again within the
  // turn: a request read then may see the turn's earlier value.)
  const dataVersionStatement = sqlite.prepare('pragma data_version').pluck();
  let thisTurn: number | undefined;
  const forgetTurn = () => {
    thisTurn = undefined;
  };
  const dataVersion = () => {
    if (thisTurn === undefined) {
      thisTurn = dataVersionStatement.get() as number;
      setImmediate(forgetTurn);
    }
    return thisTurn;
  };
  const { beforeCommit } = options;
  const writer = new GroupCommit(
    db,
    options.writeQueueLimit ?? DEFAULT_WRITE_QUEUE_LIMIT,
    durable,
    (commands) => checkpointer.written(commands),
    (trx) => runBeforeCommit(beforeCommit, trx),
  );
  return {
    db,
    dialect: 'sqlite',
    health,
    beforeCommit,
    write: (command, input) => writer.run(command, input),
    writes: () => writer.stats(),
    durable,
    // This process's commits, and data_version for commits by other connections to the file.
    version: async () => `${writer.stats().batches}.${dataVersion()}`,
    commitsElsewhere: dataVersion,
    unbounded: (work) => work(db),
    close: async () => {
      await writer.drain();
      await checkpointer.close();
      await db.destroy();
      wal.close();
    },
  };
}
