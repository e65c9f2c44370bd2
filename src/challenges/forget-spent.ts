import type { Clock } from '../clock.ts';
import { perform, type WriteServices } from '../writes/perform.ts';
import { defineWrite } from '../writes/write.ts';
import './tables.ts';

/** Solutions of expired challenges: refused by their expiry anyway, so their rows may go. */
const forgetSpentChallenges = defineWrite({
  name: 'forget spent challenges',
  async run(trx, now: number) {
    const result = await trx.deleteFrom('spent_challenges').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  },
  refusals: {},
});

/** For the retention job: removes the expired rows of the replay store; the number removed. */
export function spentChallengeRetention(services: WriteServices, clock: Clock): () => Promise<number> {
  return async () => (await perform(services, forgetSpentChallenges, clock.now())).result;
}
