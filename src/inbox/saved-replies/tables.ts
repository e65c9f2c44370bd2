/** Times are epoch milliseconds, as everywhere in the store. */
export interface SavedRepliesTable {
  id: string;
  title: string;
  body: string;
  created_at: number;
  updated_at: number;
}

declare module '../../store/schema.ts' {
  interface Database {
    saved_replies: SavedRepliesTable;
  }
}
