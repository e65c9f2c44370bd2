import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildApp } from '../../src/app.ts';
import { monotonicWallClock } from '../../src/clock.ts';
import { createConversation, startApp, type TestApp } from '../helpers.ts';
import { listAll, listPage, reply, setStatus, startRoomyApp, type ListPage } from './support.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const ids = (page: ListPage) => page.conversations.map((item) => item.id);

// Issue 10 item 15: a clock that steps back.
describe('clock steps', () => {
  let t: TestApp;
  afterEach(() => t.close());

  it('never moves updated_at or last_message_at back, so the operator list neither repeats nor reorders a conversation', async () => {
    t = await startRoomyApp();
    const created = [];
    for (let index = 0; index < 3; index += 1) {
      created.push(await createConversation(t, { message: `message ${index}` }));
      t.clock.advance(MINUTE);
    }
    const [oldest, middle, newest] = created.map((conversation) => conversation.conversation_id);
    const first = await listPage(t, { limit: 2 });
    expect(ids(first)).toEqual([newest, middle]);
    const before = await listAll(t);

    t.clock.advance(-DAY);
    expect((await reply(t, middle!, created[1]!.access_token, { message: 'Written a day "earlier"' })).statusCode).toBe(201);
    await setStatus(t, newest!, 'closed');

    const second = await listPage(t, { limit: 2, cursor: first.next_cursor! });
    expect(ids(second)).toEqual([oldest]);
    const after = await listAll(t);
    expect(after.map((item) => item.id)).toEqual(before.map((item) => item.id));
    for (const [index, item] of after.entries()) {
      expect(item.updated_at).toBe(before[index]!.updated_at);
      expect(item.last_message_at).toBe(before[index]!.last_message_at);
    }
    expect(after.find((item) => item.id === middle)?.message_count).toBe(2);

    // Once the clock is past the stored times again, a write moves the conversation to the front.
    t.clock.advance(DAY + MINUTE);
    expect((await reply(t, oldest!, created[0]!.access_token, { message: 'Later' })).statusCode).toBe(201);
    expect((await listAll(t)).map((item) => item.id)).toEqual([oldest, newest, middle]);
  });

  it('carries the system clock on through a step back, so a limit window is not reset while the process runs', async () => {
    t = await startApp({ env: { LIMIT_CONVERSATION_SOURCE: '2/1h' } });
    // This app reads the system clock's kind (a fresh one: the process's own has already seen the
    // real time in earlier files of this worker), not the test's ManualClock.
    const onWallClock = await buildApp({ config: t.config, store: t.store, clock: monotonicWallClock() });
    // The middle of the hour before this one: in the past, and far from a window's edge.
    const wallTime = Math.floor(Date.now() / HOUR) * HOUR - HOUR / 2;
    const wall = vi.spyOn(Date, 'now').mockReturnValue(wallTime);
    try {
      const create = () => onWallClock.inject({ method: 'POST', url: '/api/conversations', payload: { message: 'Hello' }, remoteAddress: '198.51.100.20' });
      expect((await create()).statusCode).toBe(201);
      expect((await create()).statusCode).toBe(201);
      expect((await create()).statusCode).toBe(429);
      wall.mockReturnValue(wallTime - 2 * HOUR);
      const afterStep = await create();
      expect(afterStep.statusCode).toBe(429);
      expect(Number(afterStep.headers['retry-after'])).toBeGreaterThan(HOUR / 2 / 1000 - 60);
    } finally {
      wall.mockRestore();
      await onWallClock.close();
    }
  });
});
