/**
 * What the codes a store fails with at start or on a request mean, in one clause an operator can
 * act on: PostgreSQL's SQLSTATE codes and Node's connection errors, as `pg` reports them.
 */
const MEANINGS: Record<string, string> = {
  '3D000': 'the database named in DATABASE_URL does not exist; create it (createdb) or correct the name',
  '28000': 'PostgreSQL refused the user in DATABASE_URL: the role does not exist, or pg_hba.conf lets it in from nowhere here',
  '28P01': 'PostgreSQL refused the password of the user in DATABASE_URL',
  '42501': 'the user in DATABASE_URL lacks a privilege Parley needs (to create its tables, it must own the database or its schema)',
  '53300': 'PostgreSQL has no connection slot left (max_connections)',
  '57P03': 'PostgreSQL is starting up, shutting down or in recovery',
  '57P01': 'PostgreSQL was shut down by its administrator',
  '08001': 'the connection to PostgreSQL could not be made',
  '08006': 'the connection to PostgreSQL failed',
  ECONNREFUSED: 'nothing accepts connections at the host and port of DATABASE_URL: is PostgreSQL running, and on that port?',
  ENOTFOUND: 'the host name in DATABASE_URL does not resolve',
  EAI_AGAIN: 'the host name in DATABASE_URL could not be resolved now (DNS)',
  ETIMEDOUT: 'the host in DATABASE_URL did not answer in time',
  EHOSTUNREACH: 'the host in DATABASE_URL cannot be reached',
  ECONNRESET: 'PostgreSQL closed the connection',
};

/** What the error's code means, when it is known. Never the error's message, which may quote the URL. */
export function storeErrorMeaning(error: unknown): string | undefined {
  const { code } = (error ?? {}) as { code?: unknown };
  return typeof code === 'string' ? MEANINGS[code] : undefined;
}
