import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type, type Static } from '@sinclair/typebox';
import { ApiError } from '../../http/errors.ts';
import { ADMIN_AUTH_ERRORS, ADMIN_BEARER, IdParam, responses, Uuid } from '../../http/schemas.ts';
import { perform } from '../../writes/perform.ts';
import { deleteConversation } from '../commands/delete-conversation.ts';
import { markSeen } from '../commands/mark-seen.ts';
import { saveReview } from '../commands/save-review.ts';
import { setStatus } from '../commands/set-status.ts';
import { findConversation } from '../queries.ts';
import { ReviewLabelSchema } from '../schemas.ts';
import { OPERATOR_TAGS } from './schemas.ts';

export const BULK_MAX_IDS = 100;
const BULK_ACTIONS = ['close', 'reopen', 'spam', 'mark_read', 'label', 'delete'] as const;
type BulkAction = (typeof BULK_ACTIONS)[number];

export const BulkRequest = Type.Object(
  {
    ids: Type.Array(IdParam, { minItems: 1, maxItems: BULK_MAX_IDS, uniqueItems: true, description: `1 to ${BULK_MAX_IDS} conversation ids.` }),
    action: Type.Union(BULK_ACTIONS.map((action) => Type.Literal(action)), { description: 'What to do to each: close, reopen, spam, mark_read, label (with label), delete.' }),
    label: Type.Optional(ReviewLabelSchema),
  },
  { title: 'BulkRequest' },
);

export const BulkResult = Type.Object(
  {
    results: Type.Array(
      Type.Object({
        id: Uuid,
        outcome: Type.Union([Type.Literal('done'), Type.Literal('not_found')], { description: 'not_found: no such conversation (on a retried delete, already gone).' }),
      }),
    ),
    done: Type.Integer(),
    not_found: Type.Integer(),
  },
  { title: 'BulkResult', description: 'One outcome per id, in the order sent. Safe to retry: each action leaves the same state however often it runs.' },
);

type Outcome = Static<typeof BulkResult>['results'][number]['outcome'];

/** POST /api/admin/conversations/bulk: one action on up to 100 conversations, each through its own write, each outcome reported. */
export const bulkRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { store, clock, config } = app.services;

  async function apply(id: string, action: BulkAction, label: Static<typeof ReviewLabelSchema> | undefined): Promise<void> {
    const now = clock.now();
    if (action === 'close' || action === 'reopen' || action === 'spam') {
      await perform(app.services, setStatus, { conversationId: id, status: action === 'close' ? 'closed' : action === 'reopen' ? 'open' : 'spam', now });
    } else if (action === 'mark_read') {
      await perform(app.services, markSeen, { conversationId: id, reader: 'admin', now });
    } else if (action === 'delete') {
      await perform(app.services, deleteConversation, { conversationId: id });
    } else {
      const conversation = await findConversation(store.db, id);
      if (!conversation) throw new ApiError('conversation_not_found');
      await perform(app.services, saveReview, { conversationId: id, label: label ?? 'unreviewed', note: conversation.operator_note, adminToken: config.adminToken });
    }
  }

  app.post(
    '/api/admin/conversations/bulk',
    {
      schema: {
        summary: 'Close, reopen, mark spam, mark read, label or delete several conversations at once',
        tags: OPERATOR_TAGS,
        security: ADMIN_BEARER,
        body: BulkRequest,
        response: responses({ 200: BulkResult }, [400, 413, 415, ...ADMIN_AUTH_ERRORS]),
      },
    },
    async (request) => {
      const { ids, action, label } = request.body;
      if (action === 'label' && label === undefined) throw new ApiError('invalid_request', { field: 'label', message: 'The label action needs a label.' });
      const results: Array<{ id: string; outcome: Outcome }> = [];
      for (const raw of ids) {
        const id = raw.toLowerCase();
        try {
          await apply(id, action, label);
          results.push({ id, outcome: 'done' });
        } catch (error) {
          if (!(error instanceof ApiError) || error.code !== 'conversation_not_found') throw error;
          results.push({ id, outcome: 'not_found' });
        }
      }
      const done = results.filter((result) => result.outcome === 'done').length;
      return { results, done, not_found: results.length - done };
    },
  );
};
