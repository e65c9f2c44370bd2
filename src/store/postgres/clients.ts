import pg from 'pg';

/**
 * pg's query_timeout rejects the query but keeps its connection, so a transaction's ROLLBACK would
 * queue behind the unanswered statement and wait out a second timeout. A connection that timed out
 * is of no more use: destroy it, so whatever is queued on it fails at once and the pool replaces it.
 */
export class BoundedClient extends pg.Client {
  // The overloads of Client.query, passed through unchanged.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    const result: unknown = Reflect.apply(super.query, this, args);
    if (result instanceof Promise) {
      result.catch((error: unknown) => {
        if ((error as Error | null)?.message === 'Query read timeout') this.connection.stream.destroy();
      });
    }
    return result;
  }
}

const MAX_NAMED_STATEMENTS = 1_000;
const statementNames = new Map<string, string>();

/** The name the SQL text `text` is prepared under; undefined once the names are all given. */
function statementName(text: string): string | undefined {
  let name = statementNames.get(text);
  if (name === undefined && statementNames.size < MAX_NAMED_STATEMENTS) {
    name = `parley_${statementNames.size + 1}`;
    statementNames.set(text, name);
  }
  return name;
}

/**
 * The request pool's client. A query with parameters runs as a named prepared statement, parsed
 * and planned once per connection rather than at each run: the queries are a fixed set of shapes,
 * and parsing and planning them again was a large part of the server's time on every write (#12).
 * The schema is migrated before the pool serves, so no plan outlives the tables it was made for.
 */
export class PreparingClient extends BoundedClient {
  #corked = false;

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  override query(...args: any[]): any {
    this.#corkUntilNextTick();
    const [text, values] = args as [unknown, unknown];
    const name = args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0 ? statementName(text) : undefined;
    return name === undefined ? super.query(...args) : super.query({ name, text, values });
  }

  /**
   * The queries handed over in one go (a BEGIN with its first statement, statements sent together)
   * leave in one socket write: each write wakes the server process, and the writes, not the
   * round trips, were most of Parley's CPU on PostgreSQL (#12).
   */
  #corkUntilNextTick(): void {
    if (this.#corked) return;
    const stream = this.connection.stream;
    stream.cork();
    this.#corked = true;
    process.nextTick(() => {
      this.#corked = false;
      stream.uncork();
    });
  }
}
