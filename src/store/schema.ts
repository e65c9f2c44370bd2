/**
 * Every table in the store, as Kysely sees them. Empty here on purpose: each owner of tables adds
 * its own from its `tables.ts` by declaration merging (`declare module '../store/schema.ts'`), so
 * the store imports no feature and `Kysely<Database>` still knows every table. The augmentations
 * are type-only and apply to every file in the compilation: tsconfig includes all of src/.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by declaration merging
export interface Database {}
