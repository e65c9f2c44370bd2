import type { Clock } from '../../clock.ts';
import { ApiError } from '../../http/errors.ts';
import type { Limiter } from '../../limits/limiter.ts';
import type { Command } from '../../store/commands.ts';
import { runCommand } from '../../store/commands.ts';
import type { Store } from '../../store/database.ts';
import { LOBBY_KEY } from '../categories.ts';
import { recordReferral } from './counters.ts';

const countGuideHit: Command<{ referralId: string; limiter: Limiter; now: number }, void> = async (trx, { referralId, limiter, now }) => {
  await recordReferral(trx, limiter, referralId, 'peer-guide', now);
};

/** What the peer guide reads from the forum: the lobby's title and summary, and the hit counter of a ref (COMPAT §5.2). */
export function peerGuideSource({ store, limiter, clock }: { store: Store; limiter: Limiter; clock: Clock }) {
  // The lobby is permanent and no route edits it: one query for the life of the process.
  let lobby: { title: string; purpose: string } | undefined;
  return {
    async lobby() {
      if (lobby) return lobby;
      const row = await store.db.selectFrom('forum_topics').select(['title', 'summary']).where('client_token_hash', '=', LOBBY_KEY).executeTakeFirst();
      if (!row) throw new ApiError('internal_error');
      lobby = { title: row.title, purpose: row.summary };
      return lobby;
    },
    async countHit(referralId: string) {
      await runCommand(store, countGuideHit, { referralId, limiter, now: clock.now() });
    },
  };
}
