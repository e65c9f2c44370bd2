import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApp } from '../../helpers.ts';
import { create, insertOperatorMessage, readConversation, startRoomyApp } from '../support.ts';

/*
 * The operator's typical first-reply time (issue #30): the median delay to the operator's first
 * reply over the last 30 days, rounded, on the creation receipt, the visitor's read and the guide.
 */
const MINUTE = 60_000;
let t: TestApp;
beforeAll(async () => {
  t = await startRoomyApp();
});
afterAll(() => t.close());

async function guideFigure(): Promise<unknown> {
  return (await t.inject({ method: 'GET', url: '/api/agent-guide' })).json().typical_first_reply_seconds;
}

/** Moves past the figure's refresh period, asks once to start the refresh, and waits for it to be served. */
async function figureAfterRefresh(expected: number | null): Promise<void> {
  t.clock.advance(11 * MINUTE);
  await guideFigure();
  await vi.waitFor(async () => expect(await guideFigure()).toBe(expected), { timeout: 10_000 });
}

async function answeredAfter(delayMs: number): Promise<{ id: string; token: string }> {
  const created = await create(t, { message: 'Hello' });
  expect(created.statusCode, created.body).toBe(201);
  const { conversation_id: id, access_token: token } = created.json();
  t.clock.advance(delayMs);
  await insertOperatorMessage(t, id, 'Hello back');
  return { id, token };
}

describe('typical first-reply time', () => {
  it('is null on every document while no conversation has been answered', async () => {
    const created = await create(t, { message: 'Nobody has answered yet' });
    expect(created.json().typical_first_reply_seconds).toBeNull();
    const read = await readConversation(t, created.json().conversation_id, created.json().access_token);
    expect(read.json().typical_first_reply_seconds).toBeNull();
    expect(await guideFigure()).toBeNull();
  });

  it('is the median of first-reply delays, rounded to the minute, and reaches the receipt and the read', async () => {
    await answeredAfter(5 * MINUTE);
    await answeredAfter(9 * MINUTE + 20_000);
    // A second operator message is not a first reply, and the unanswered conversation above counts for nothing.
    const { id, token } = await answeredAfter(3 * MINUTE);
    t.clock.advance(100 * MINUTE);
    await insertOperatorMessage(t, id, 'Later');
    await figureAfterRefresh(300);
    const created = await create(t, { message: 'What should I expect?' });
    expect(created.json().typical_first_reply_seconds).toBe(300);
    expect((await readConversation(t, id, token)).json().typical_first_reply_seconds).toBe(300);
  });

  it('forgets conversations older than 30 days and rounds long delays to the quarter hour', async () => {
    t.clock.advance(31 * 24 * 60 * MINUTE);
    await figureAfterRefresh(null);
    await answeredAfter(2 * 60 * MINUTE + 10 * MINUTE);
    await figureAfterRefresh(2 * 3600 + 15 * 60);
  });
});
