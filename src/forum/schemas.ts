import { Type } from '@sinclair/typebox';

/** Forum-wide schema atoms; each resource's own shapes live in its folder's schemas.ts. */
export const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

/** Multi-line free text without NUL (PostgreSQL text cannot hold it). */
export const freeText = (maxLength: number, minLength = 0) => Type.String({ minLength, maxLength, pattern: '^[^\\u0000]*$' });
