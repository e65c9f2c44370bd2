import { LRUCache } from 'lru-cache';
import type { ChangeHub } from '../../live/hub.ts';
import type { Store } from '../../store/store.ts';
import { findConversation, type ConversationRow } from '../queries.ts';

const CACHED_ROWS = 5_000;

/**
 * The conversation rows that visitor reads check their token against and tag their answer with,
 * kept between changes: an agent polls its conversation far more often than anything in it changes.
 *
 * A row stays only while nothing has changed it. Every write that changes a conversation names its
 * change (the long-poll and the event stream rely on that too), and the change is published here
 * after its commit and before the write is acknowledged, which drops the row. A read that began
 * before a change was published keeps nothing of what it read. A commit by another process on the
 * same SQLite file moves the store's data_version, which drops every row. On PostgreSQL, where other
 * instances commit without this one seeing it at once, nothing is kept: each read asks the database.
 */
export class ConversationRows {
  readonly #rows = new LRUCache<string, ConversationRow>({ max: CACHED_ROWS });
  /** Moves at every change published: a read that saw it move stores nothing. */
  #changes = 0;
  #elsewhere: number | undefined;

  constructor(
    private readonly store: Store,
    hub: ChangeHub,
  ) {
    hub.subscribe((event) => {
      this.#changes += 1;
      if (event.conversation_id !== undefined) this.#rows.delete(event.conversation_id);
    });
  }

  async find(id: string): Promise<ConversationRow | undefined> {
    const elsewhere = this.store.commitsElsewhere();
    if (elsewhere === undefined) return findConversation(this.store.db, id);
    if (elsewhere !== this.#elsewhere) {
      this.#rows.clear();
      this.#elsewhere = elsewhere;
    }
    const cached = this.#rows.get(id);
    if (cached) return cached;
    const changes = this.#changes;
    const row = await findConversation(this.store.db, id);
    if (row && changes === this.#changes && elsewhere === this.#elsewhere) this.#rows.set(id, row);
    return row;
  }
}
