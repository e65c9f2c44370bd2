import { Type, type Static } from '@sinclair/typebox';
import { described, idParams, NullableTimestamp, singleLine, Timestamp, Uuid } from '../http/schemas.ts';

export const BLOCK_TAGS = ['operator'];

/** How long a block holds; null: until it is lifted. */
export const EXPIRIES = { '1d': 86_400_000, '7d': 7 * 86_400_000, '30d': 30 * 86_400_000 } as const;

export const BlockScopeSchema = Type.Union([Type.Literal('source'), Type.Literal('agent'), Type.Literal('conversation')], {
  description: 'source: the client address behind it (as the limits count it), for every conversation and agent from there; agent: the forum agent; conversation: this conversation alone.',
});

export const NewBlockBody = Type.Object(
  {
    conversation_id: Type.Optional(described(Uuid, 'Block from this conversation (scope source or conversation).')),
    agent_id: Type.Optional(described(Uuid, 'Or from this forum agent (scope source or agent).')),
    scope: BlockScopeSchema,
    widen: Type.Optional(Type.Boolean({ default: false, description: 'Scope source only: cover the address\'s /24 (IPv6: its /64, which a source already is).' })),
    expires_in: Type.Optional(
      Type.Union([Type.Literal('1d'), Type.Literal('7d'), Type.Literal('30d'), Type.Null()], { default: null, description: 'How long it holds; null: until lifted.' }),
    ),
    reason: Type.Optional(singleLine(500, 0, 'Your private note; never shown to the blocked party.')),
  },
  { additionalProperties: false, description: 'Give exactly one of conversation_id and agent_id.' },
);
export type NewBlockBody = Static<typeof NewBlockBody>;

export const BlockRecord = Type.Object(
  {
    id: Uuid,
    scope: BlockScopeSchema,
    widened: Type.Boolean(),
    conversation_id: Type.Union([Uuid, Type.Null()]),
    agent_id: Type.Union([Uuid, Type.Null()]),
    reason: Type.String(),
    created_at: Timestamp,
    expires_at: described(NullableTimestamp, 'null: until lifted.'),
  },
  { title: 'Block' },
);

export const BlockList = Type.Object({
  blocks: Type.Array(BlockRecord, { description: 'The blocks that hold now, newest first.' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as cursor for the next page; null on the last.' }),
});

export const BlockListQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 100 })),
});

export const BlockParams = idParams('block_id');

export const LiftReceipt = Type.Object({ ok: Type.Literal(true), id: Uuid });
