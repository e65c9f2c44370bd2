import type { CompiledQuery, Compilable, Kysely, QueryResult } from 'kysely';
import { dialectOf, type Dialect } from './dialect.ts';
import type { Database } from './schema.ts';

type Db = Kysely<Database>;

/** Stands for a named parameter while a prepared query is built. */
export type Params<P> = { readonly [K in keyof P]: P[K] };

const MARK = '\u0000parley-param:';

interface Template<R> {
  compiled: CompiledQuery<R>;
  /** For each parameter of the compiled query: the name of the input it takes, or its constant value. */
  slots: ({ name: string } | { constant: unknown })[];
}

/**
 * A query built and compiled by Kysely once per dialect, then run with new parameter values:
 * building and compiling cost more than SQLite takes to run a small query, and the hot queries
 * are fixed shapes. `build` receives stand-ins for the named parameters and must pass each one
 * where Kysely makes a bound parameter of it (a value compared, inserted or set, a limit), never
 * into a literal or an identifier. Execution stays Kysely's (its driver, connection and plugins),
 * and the statement cache below it makes the SQL a prepared statement.
 */
export class Prepared<P extends Record<string, unknown>, R> {
  readonly #templates = new Map<Dialect, Template<R>>();

  constructor(
    private readonly names: readonly (keyof P & string)[],
    private readonly build: (db: Db, params: Params<P>) => Compilable<R>,
  ) {}

  execute(db: Db, params: P): Promise<QueryResult<R>> {
    return db.executeQuery<R>(this.compile(db, params));
  }

  /** The query with `params` bound, to run with others (executeTogether). */
  compile(db: Db, params: P): CompiledQuery<R> {
    const { compiled, slots } = this.#template(db);
    const parameters = slots.map((slot) => ('name' in slot ? params[slot.name] : slot.constant));
    return { ...compiled, parameters };
  }

  async rows(db: Db, params: P): Promise<R[]> {
    return (await this.execute(db, params)).rows;
  }

  async first(db: Db, params: P): Promise<R | undefined> {
    return (await this.execute(db, params)).rows[0];
  }

  #template(db: Db): Template<R> {
    const dialect = dialectOf(db);
    let template = this.#templates.get(dialect);
    if (!template) {
      const stand = Object.fromEntries(this.names.map((name) => [name, `${MARK}${name}`])) as unknown as Params<P>;
      const compiled = this.build(db, stand).compile();
      const slots = compiled.parameters.map((value) =>
        typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { constant: value },
      );
      const used = new Set(slots.flatMap((slot) => ('name' in slot ? [slot.name] : [])));
      const missing = this.names.filter((name) => !used.has(name));
      if (missing.length > 0) throw new Error(`prepared query never binds ${missing.join(', ')}: ${compiled.sql}`);
      template = { compiled, slots };
      this.#templates.set(dialect, template);
    }
    return template;
  }
}

/** A prepared query with the named parameters `names` (see Prepared). */
export function prepare<P extends Record<string, unknown>, R>(names: readonly (keyof P & string)[], build: (db: Db, params: Params<P>) => Compilable<R>): Prepared<P, R> {
  return new Prepared(names, build);
}
