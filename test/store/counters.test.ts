import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { admin, overview, startRoomyApp } from '../inbox/support.ts';
import { createConversation, TEST_STORE, type TestApp } from '../helpers.ts';

/**
 * The aggregate counters move in the transactions of the changes they count. On PostgreSQL those
 * transactions run truly in parallel and lock counter rows: opposite moves racing (one
 * conversation open→closed while another goes closed→open) must neither deadlock (a 500) nor skew
 * a count.
 */
describe(`aggregate counters under concurrent changes (${TEST_STORE})`, () => {
  let t: TestApp;
  beforeEach(async () => {
    t = await startRoomyApp();
  });
  afterEach(() => t.close());

  it('survive opposite status changes and label changes racing on different conversations', async () => {
    const [first, second] = [await createConversation(t), await createConversation(t)];
    const path = (id: string, action: string) => `/api/admin/conversations/${id}/${action}`;
    expect((await admin(t, 'POST', path(second.conversation_id, 'status'), { status: 'closed' })).statusCode).toBe(200);
    expect((await admin(t, 'POST', path(second.conversation_id, 'review'), { label: 'other', note: '' })).statusCode).toBe(200);
    const answers: number[] = [];
    for (let round = 0; round < 12; round += 1) {
      const flip = round % 2 === 0;
      const results = await Promise.all([
        admin(t, 'POST', path(first.conversation_id, 'status'), { status: flip ? 'closed' : 'open' }),
        admin(t, 'POST', path(second.conversation_id, 'status'), { status: flip ? 'open' : 'closed' }),
        admin(t, 'POST', path(first.conversation_id, 'review'), { label: flip ? 'other' : 'unreviewed', note: '' }),
        admin(t, 'POST', path(second.conversation_id, 'review'), { label: flip ? 'unreviewed' : 'other', note: '' }),
      ]);
      answers.push(...results.map((result) => result.statusCode));
    }
    expect(answers.filter((status) => status !== 200), 'answers other than 200').toEqual([]);
    // 12 rounds: both conversations are back where they started.
    const totals = await overview(t);
    expect(totals.totals).toMatchObject({ total_conversations: 2, open: 1, closed: 1, spam: 0 });
    expect(totals.labels.filter((label) => label.count > 0)).toEqual([
      { label: 'unreviewed', count: 1 },
      { label: 'other', count: 1 },
    ]);
  });
});
