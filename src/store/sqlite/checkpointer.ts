import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Commands committed since the last checkpoint that start the next one: a command appends a dozen
 * or so pages to the log, so about SQLite's own threshold of 1,000 pages.
 */
export const CHECKPOINT_COMMANDS = 80;

// Plain JavaScript run by the worker (eval'd, so the build needs no second entry point): its own
// connection to the file, a PASSIVE checkpoint per request, the result posted back.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
db.pragma('busy_timeout = 5000');
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage({ ok: true });
  } catch (error) {
    parentPort.postMessage({ ok: false, code: error && error.code, message: String(error && error.message) });
  }
});
`;

/**
 * Copies the write-ahead log into the database file on a worker thread. SQLite checkpoints inside
 * the COMMIT that crosses its threshold, and better-sqlite3 is synchronous: the copy and its two
 * syncs would stall every request. The writer's connection runs with wal_autocheckpoint=0 and
 * calls `written` after each commit; one PASSIVE checkpoint runs at a time, never blocking the
 * writer, and SQLite restarts the log from its start once a checkpoint has copied all of it.
 */
export class Checkpointer {
  readonly #worker: Worker;
  #commandsSince = 0;
  #running = false;
  #closed = false;

  /**
   * `onError` hears of a checkpoint that failed; `onLost` is called once if the worker cannot start
   * or dies, so that the writer's connection checkpoints by itself again and the log never grows
   * without bound.
   */
  constructor(
    file: string,
    handlers: { onError: (error: Error & { code?: string }) => void; onLost: () => void },
    driver = createRequire(import.meta.url).resolve('better-sqlite3'),
  ) {
    this.#worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { file, driver } });
    this.#worker.unref();
    this.#worker.on('message', (result: { ok: boolean; code?: string; message?: string }) => {
      this.#running = false;
      if (!result.ok) handlers.onError(Object.assign(new Error(result.message), { code: result.code }));
      if (this.#commandsSince >= CHECKPOINT_COMMANDS) this.#start();
    });
    this.#worker.on('error', () => {});
    this.#worker.once('exit', () => {
      if (!this.#closed) handlers.onLost();
      this.#closed = true;
    });
  }

  /** After a commit of `commands` commands. */
  written(commands: number): void {
    this.#commandsSince += commands;
    if (this.#commandsSince >= CHECKPOINT_COMMANDS && !this.#running) this.#start();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const exited = new Promise((resolve) => this.#worker.once('exit', resolve));
    // Unref'd, the worker would not keep the process alive until it has closed its connection.
    this.#worker.ref();
    this.#worker.postMessage('close');
    await exited;
  }

  #start(): void {
    if (this.#closed) return;
    this.#running = true;
    this.#commandsSince = 0;
    this.#worker.postMessage('checkpoint');
  }
}
