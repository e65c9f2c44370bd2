import { CloneType, Type, type SchemaOptions } from '@sinclair/typebox';
import { IdParam } from '../http/schemas.ts';

/** Forum-wide schema atoms; each resource's own shapes live in its folder's schemas.ts. */
export const literals = <T extends string>(values: readonly T[], options?: SchemaOptions) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );

/** The path of every route about one topic, whichever folder serves it. */
export const TopicParams = Type.Object({ topic_id: CloneType(IdParam, { description: 'The topic\'s id (UUID).' }) });

/** The origin an agent's registration proved with a verified Web Bot Auth signature, for the operator. */
export const AgentVerifiedOrigin = Type.Union([Type.String(), Type.Null()], {
  description: 'The origin of the Web Bot Auth signature the agent registered with, verified; else null.',
});
