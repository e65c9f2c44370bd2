/** A unique-constraint violation in either dialect: the signal that a racing request won. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}

/** A row that names another that is not there (a message of a conversation that was deleted). */
export function isForeignKeyViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}

/** PostgreSQL ended the transaction to break a deadlock (40P01): run again, it may well pass. */
export function isDeadlock(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === '40P01';
}

/**
 * Why the store cannot do its work now, whatever the request:
 * - `unreachable`: the connection is refused, lost or timed out (node and PostgreSQL class 08 and
 *   57P codes), the database is gone (3D000) or refuses the user (28000, 28P01), PostgreSQL has no connection slot left (53300) or cancelled a statement that ran past
 *   statement_timeout (57014), or SQLite stayed locked past busy_timeout (SQLITE_BUSY);
 * - `no_space`: the disk (or SQLite's max_page_count) is full: SQLITE_FULL, ENOSPC, PostgreSQL 53100;
 * - `io_error`: the disk fails to read or write: any SQLITE_IOERR, EIO (a failed sync), PostgreSQL 58030;
 * - `corrupt`: the database file is damaged: SQLITE_CORRUPT, SQLITE_NOTADB, PostgreSQL XX001/XX002.
 */
export type StoreFault = 'unreachable' | 'no_space' | 'io_error' | 'corrupt';

const FAULT_CODES: Record<string, StoreFault> = {
  ECONNREFUSED: 'unreachable',
  ECONNRESET: 'unreachable',
  ETIMEDOUT: 'unreachable',
  EPIPE: 'unreachable',
  EHOSTUNREACH: 'unreachable',
  ENETUNREACH: 'unreachable',
  EAI_AGAIN: 'unreachable',
  '57P01': 'unreachable',
  '57P02': 'unreachable',
  '57P03': 'unreachable',
  '57014': 'unreachable',
  '53300': 'unreachable',
  '08000': 'unreachable',
  '08001': 'unreachable',
  '08003': 'unreachable',
  '08006': 'unreachable',
  // The database went away, or the server refuses the connection's user: nothing answers this instance.
  '3D000': 'unreachable',
  '28000': 'unreachable',
  '28P01': 'unreachable',
  ENOTFOUND: 'unreachable',
  SQLITE_BUSY: 'unreachable',
  SQLITE_FULL: 'no_space',
  ENOSPC: 'no_space',
  '53100': 'no_space',
  '58030': 'io_error',
  EIO: 'io_error',
  SQLITE_NOTADB: 'corrupt',
  XX001: 'corrupt',
  XX002: 'corrupt',
};

const UNREACHABLE_MESSAGE = /Connection terminated|connection timeout|timeout exceeded when trying to connect|Client has encountered a connection error|Query read timeout/i;

export function storeFault(error: unknown): StoreFault | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string') {
    const fault = FAULT_CODES[code];
    if (fault) return fault;
    // SQLite's extended codes refine the primary one: SQLITE_IOERR_WRITE, SQLITE_CORRUPT_INDEX, ...
    if (code.startsWith('SQLITE_IOERR')) return 'io_error';
    if (code.startsWith('SQLITE_CORRUPT')) return 'corrupt';
  }
  return typeof message === 'string' && UNREACHABLE_MESSAGE.test(message) ? 'unreachable' : undefined;
}

/** The store cannot be opened as configured; the message is one sentence for the operator, with no secret. */
export class StoreOpenError extends Error {
  override name = 'StoreOpenError';
  /** The system's or SQLite's code of the cause (ENOTDIR, SQLITE_NOTADB), shown beside the sentence. */
  readonly code: string | undefined;

  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    const { code } = (cause ?? {}) as { code?: unknown };
    this.code = typeof code === 'string' ? code : undefined;
  }
}

/** The write queue is full: the store takes writes as fast as it can. Answered 503 store_busy with Retry-After. */
export class WriteQueueFullError extends Error {
  override name = 'WriteQueueFullError';
  constructor() {
    super('the write queue is full');
  }
}
