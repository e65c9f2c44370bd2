import { closeSync, fsync, fsyncSync, openSync } from 'node:fs';
import path from 'node:path';

/**
 * Makes SQLite's committed transactions durable off the event loop. SQLite runs with
 * synchronous=NORMAL, so a COMMIT appends its frames to the write-ahead log without syncing it;
 * `sync()` resolves once an fsync of the log that started after the call has finished, in libuv's
 * thread pool, and every commit is acknowledged only after that. Concurrent callers share one
 * fsync: while one runs, the callers that arrive wait together for the next.
 *
 * Why not synchronous=FULL: better-sqlite3 is synchronous, so FULL's fsync inside COMMIT would block
 * every request for the length of the sync, each batch. Checkpoints stay SQLite's own: in WAL mode
 * with NORMAL they sync the log before copying it and the database file after.
 */
export class WalSync {
  #fd: number | undefined;
  #running: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  constructor(private readonly walFile: string) {}

  sync(): Promise<void> {
    if (!this.#running) return this.#start();
    // The running fsync may have started before the caller's commit: wait for the one after it.
    this.#next ??= this.#running.then(
      () => this.#startNext(),
      () => this.#startNext(),
    );
    return this.#next;
  }

  /** The log exists once a transaction has committed; its directory entry must survive a power loss too. */
  #open(): number {
    const fd = openSync(this.walFile, 'r+');
    const directory = openSync(path.dirname(this.walFile), 'r');
    try {
      fsyncSync(directory);
    } finally {
      closeSync(directory);
    }
    return fd;
  }

  close(): void {
    if (this.#fd !== undefined) closeSync(this.#fd);
    this.#fd = undefined;
  }

  #startNext(): Promise<void> {
    this.#next = undefined;
    return this.#start();
  }

  #start(): Promise<void> {
    const fd = (this.#fd ??= this.#open());
    const running = new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));
    this.#running = running;
    const clear = () => {
      if (this.#running === running) this.#running = undefined;
    };
    running.then(clear, clear);
    return running;
  }
}
