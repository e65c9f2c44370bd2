import type { ConversationListItem } from '../api-types.ts';

/** Everything the console remembers between events, in one place that every module reads and writes. */
export const state = {
  /**
   * The token lives in sessionStorage too: it survives a reload of this tab and dies with the tab, and
   * no other tab or later visit sees it (see the README on why not localStorage). Never in a cookie or a URL.
   */
  token: '',
  rows: [] as ConversationListItem[],
  cursor: null as string | null,
  /** The open conversation's id. */
  current: null as string | null,
  currentStatus: 'open',
  currentTopic: null as string | null,
  forumLoaded: false,
  stopStream: undefined as (() => void) | undefined,
  /** The open conversation changed while the tab was hidden: read it (and so mark it read) once seen. */
  threadStale: false,
  /** The review fields hold the operator's unsaved edits: a live re-render leaves them alone. */
  reviewEdited: false,
  drafts: new Map<string, string>(),
  /** Conversations whose deletion waits out its undo window: out of the list meanwhile. */
  deleting: new Set<string>(),
  /** Conversations ticked for a bulk action. */
  selected: new Set<string>(),
};

export const TOKEN_KEY = 'parley.adminToken';
export const TITLE = 'Parley console';
