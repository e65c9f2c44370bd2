import fc from 'fast-check';
import { beforeEach, describe, expect, it } from 'vitest';
import { bearer, createConversation, emptyTables, json, type Created, type TestApp } from '../../helpers.ts';
import { admin, expectCachedJsonAgain, listAll, overview, sharedRoomyApp, type ListItem, type Overview } from '../support.ts';

const LABELS = ['unreviewed', 'transport_test', 'authorized_agent_test', 'independent_contact_claim', 'human_contact', 'other'] as const;
const STATUSES = ['open', 'closed', 'spam'] as const;
const INVITATIONS = [undefined, 'alpha', 'beta', 'gamma'] as const;
const HOUR = 3_600_000;

/** What the overview must say, computed from the rows themselves (through the list). */
function expectedOverview(items: ListItem[], now: number): Omit<Overview, 'note'> {
  const invitationCounts = new Map<string, number>();
  for (const item of items) {
    if (item.invitation_id !== null) invitationCounts.set(item.invitation_id, (invitationCounts.get(item.invitation_id) ?? 0) + 1);
  }
  return {
    totals: {
      total_conversations: items.length,
      unread_threads: items.filter((item) => item.unread_count > 0).length,
      open: items.filter((item) => item.status === 'open').length,
      closed: items.filter((item) => item.status === 'closed').length,
      spam: items.filter((item) => item.status === 'spam').length,
      spam_threads: items.filter((item) => item.status === 'spam').length,
      new_last_24h: items.filter((item) => Date.parse(item.created_at) > now - 24 * HOUR).length,
      active_blocks: 0,
    },
    labels: LABELS.map((label) => ({ label, count: items.filter((item) => item.review_label === label).length })),
    invitation_ids: [...invitationCounts.entries()]
      .map(([id, count]) => ({ id, count }))
      .sort((a, b) => b.count - a.count || (a.id < b.id ? -1 : 1)),
  };
}

describe('operator overview', () => {
  // One app, its tables emptied before each test (and before each run of the property).
  const shared = sharedRoomyApp();
  let t: TestApp;
  beforeEach(() => {
    t = shared();
  });

  it('starts at zero with all six labels and a note, and holds no content', async () => {
    const empty = await overview(t);
    expect(empty).toEqual({
      totals: { total_conversations: 0, unread_threads: 0, open: 0, closed: 0, spam: 0, spam_threads: 0, new_last_24h: 0, active_blocks: 0 },
      labels: LABELS.map((label) => ({ label, count: 0 })),
      invitation_ids: [],
      note: expect.stringMatching(/self-reported/),
    });
    await createConversation(t, { message: 'Secret plans inside', name: 'Agent Orange', invitation_id: 'promo-7' });
    const response = await admin(t, 'GET', '/api/admin/overview');
    expect(response.body).not.toMatch(/Secret plans|Agent Orange/);
    expect(json<Overview>(response).invitation_ids).toEqual([{ id: 'promo-7', count: 1 }]);
  });

  it('answers an unchanged overview again from its cache with the same bytes, JSON type and length', async () => {
    await createConversation(t, { message: 'first', invitation_id: 'promo-7' });
    const again = await expectCachedJsonAgain(t, '/api/admin/overview');
    expect(json<Overview>(again).invitation_ids).toEqual([{ id: 'promo-7', count: 1 }]);
  });

  it('counts new conversations of the last 24 hours only', async () => {
    await createConversation(t, { message: 'old' });
    t.clock.advance(23 * HOUR);
    await createConversation(t, { message: 'recent' });
    expect((await overview(t)).totals).toMatchObject({ total_conversations: 2, new_last_24h: 2 });
    t.clock.advance(2 * HOUR);
    expect((await overview(t)).totals).toMatchObject({ total_conversations: 2, new_last_24h: 1 });
  });

  it('keeps the top 50 invitation ids, most first', async () => {
    for (let index = 0; index < 53; index += 1) {
      for (let repeat = 0; repeat < (index < 3 ? 3 - index + 1 : 1); repeat += 1) {
        await createConversation(t, { message: `m${index}-${repeat}`, invitation_id: `inv-${String(index).padStart(2, '0')}` });
      }
    }
    const top = (await overview(t)).invitation_ids;
    expect(top).toHaveLength(50);
    expect(top.slice(0, 4)).toEqual([
      { id: 'inv-00', count: 4 },
      { id: 'inv-01', count: 3 },
      { id: 'inv-02', count: 2 },
      { id: 'inv-03', count: 1 },
    ]);
  });

  it('matches the rows after any mix of operations', async () => {
    type Operation =
      | { kind: 'create'; invitation: number; name: boolean }
      | { kind: 'visitorReply' | 'operatorRead' | 'operatorReply' | 'delete'; target: number }
      | { kind: 'status'; target: number; status: number }
      | { kind: 'review'; target: number; label: number }
      | { kind: 'advance'; hours: number };
    const target = fc.nat({ max: 30 });
    const operation: fc.Arbitrary<Operation> = fc.oneof(
      { weight: 4, arbitrary: fc.record({ kind: fc.constant('create' as const), invitation: fc.nat({ max: INVITATIONS.length - 1 }), name: fc.boolean() }) },
      { weight: 3, arbitrary: fc.record({ kind: fc.constantFrom('visitorReply' as const, 'operatorRead' as const, 'operatorReply' as const, 'delete' as const), target }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('status' as const), target, status: fc.nat({ max: 2 }) }) },
      { weight: 2, arbitrary: fc.record({ kind: fc.constant('review' as const), target, label: fc.nat({ max: LABELS.length - 1 }) }) },
      { weight: 1, arbitrary: fc.record({ kind: fc.constant('advance' as const), hours: fc.integer({ min: 1, max: 20 }) }) },
    );

    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 25 }), async (operations) => {
        await emptyTables(t);
        run += 1;
        const live: Created[] = [];
        const pick = (index: number) => live[index % live.length];
        for (const [step, op] of operations.entries()) {
          if (op.kind === 'create') {
            const invitation = INVITATIONS[op.invitation];
            live.push(await createConversation(t, { message: `run ${run} step ${step}`, ...(op.name ? { name: 'Named' } : {}), ...(invitation ? { invitation_id: invitation } : {}) }));
            continue;
          }
          if (op.kind === 'advance') {
            t.clock.advance(op.hours * HOUR);
            continue;
          }
          const conversation = pick(op.target);
          if (!conversation) continue;
          const id = conversation.conversation_id;
          switch (op.kind) {
            case 'visitorReply':
              await t.inject({ method: 'POST', url: `/api/conversations/${id}/messages`, headers: bearer(conversation.access_token), payload: { message: `step ${step}` } });
              break;
            case 'operatorRead':
              await admin(t, 'GET', `/api/admin/conversations/${id}`);
              break;
            case 'operatorReply':
              await admin(t, 'POST', `/api/admin/conversations/${id}/messages`, { message: `step ${step}` });
              break;
            case 'delete':
              expect((await admin(t, 'DELETE', `/api/admin/conversations/${id}`)).statusCode).toBe(200);
              live.splice(live.indexOf(conversation), 1);
              break;
            case 'status':
              await admin(t, 'POST', `/api/admin/conversations/${id}/status`, { status: STATUSES[op.status] });
              break;
            case 'review':
              await admin(t, 'POST', `/api/admin/conversations/${id}/review`, { label: LABELS[op.label], note: '' });
              break;
          }
        }
        const items = await listAll(t, {}, 7);
        expect(items.map((item) => item.id).sort()).toEqual(live.map((item) => item.conversation_id).sort());
        // The rows themselves agree with their messages.
        const messages = await t.store.db.selectFrom('messages').select(['conversation_id', 'role', 'seen_at']).execute();
        for (const item of items) {
          const own = messages.filter((message) => message.conversation_id === item.id);
          expect(item.message_count).toBe(own.length);
          expect(item.unread_count).toBe(own.filter((message) => message.role === 'visitor' && message.seen_at === null).length);
        }
        const { note: _note, ...actual } = await overview(t);
        expect(actual).toEqual(expectedOverview(items, t.clock.now()));
      }),
      { numRuns: 12, seed: 20261122 },
    );
  });
});
