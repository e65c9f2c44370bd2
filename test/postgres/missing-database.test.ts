import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers.ts';
import { freshDatabase, newRunId, withClient } from './databases.ts';

/*
 * A database dropped under a running instance: each request then fails to connect with 3D000. It is
 * answered 503 store_unavailable, and the log line says what the code means, not only the code.
 */
describe('a database that no longer exists', () => {
  let t: TestApp;
  let name: string;
  beforeAll(async () => {
    const database = await freshDatabase(newRunId(), 'dropped');
    name = database.name;
    t = await startApp({ env: { DATABASE_URL: database.url } });
    await withClient((client) => client.query(`drop database "${name}" with (force)`));
  });
  afterAll(() => t.close().catch(() => undefined));

  it('answers 503 store_unavailable and logs what 3D000 means', async () => {
    const lines = () => t.logs.map((line) => JSON.parse(line) as { level: number; msg: string; err?: { code?: string } });
    // The pool's first connection was ended by the drop (57P01); connections opened after it meet 3D000.
    for (let attempt = 0; attempt < 5 && !lines().some((line) => line.err?.code === '3D000'); attempt += 1) {
      const answer = await t.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Is anyone there?' } });
      expect(answer.statusCode).toBe(503);
      expect(answer.json()).toMatchObject({ code: 'store_unavailable' });
    }
    const missing = lines().find((line) => line.err?.code === '3D000');
    expect(missing).toMatchObject({
      level: 50,
      msg: 'store unavailable: the store does not answer: the database named in DATABASE_URL does not exist; create it (createdb) or correct the name (3D000)',
    });
  });
});
