/** What a block covers: the client address behind a conversation or agent, the agent, or one conversation. */
export type BlockScope = 'source' | 'agent' | 'conversation';

/** A block (src/blocks): held on `subject_key`, until `expires_at` (null: until lifted). Times are epoch milliseconds. */
export interface BlocksTable {
  id: string;
  scope: BlockScope;
  /** The keyed hash of the source (or of its /24 when widened), the agent id or the conversation id. */
  subject_key: string;
  widened: number;
  /** The conversation or agent it was made from, for the operator. */
  conversation_id: string | null;
  agent_id: string | null;
  /** The operator's own note; never shown to the blocked party. */
  reason: string;
  created_at: number;
  expires_at: number | null;
  /** The form nonce of a block made from an action link's page: a retried post finds its block by it. */
  request_key: string | null;
}

export interface BlockTables {
  blocks: BlocksTable;
}

declare module '../store/schema.ts' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- declaration merging: adds BlockTables to the store's tables
  interface Database extends BlockTables {}
}
