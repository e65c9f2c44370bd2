import type { Clock } from '../../clock.ts';
import { ApiError } from '../../http/errors.ts';
import type { Limiter } from '../../limits/limiter.ts';
import { perform, type WriteServices } from '../../writes/perform.ts';
import { defineWrite } from '../../writes/write.ts';
import { LOBBY_KEY } from '../categories.ts';
import { recordReferral } from './counters.ts';

const countGuideHit = defineWrite({
  name: 'peer-guide hit',
  async run(trx, { referralId, limiter, now }: { referralId: string; limiter: Limiter; now: number }) {
    await recordReferral(trx, limiter, referralId, 'peer-guide', now);
  },
  refusals: {},
});

/** What the peer guide reads from the forum: the lobby's title and summary, and the hit counter of a ref (COMPAT §5.2). */
export function peerGuideSource(services: WriteServices & { limiter: Limiter; clock: Clock }) {
  const { store, limiter, clock } = services;
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
      await perform(services, countGuideHit, { referralId, limiter, now: clock.now() });
    },
  };
}
