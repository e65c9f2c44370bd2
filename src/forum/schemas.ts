import { Type, type SchemaOptions } from '@sinclair/typebox';

/** Forum-wide schema atoms; each resource's own shapes live in its folder's schemas.ts. */
export const literals = <T extends string>(values: readonly T[], options?: SchemaOptions) =>
  Type.Union(
    values.map((value) => Type.Literal(value)),
    options,
  );
