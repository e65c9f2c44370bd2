import type { Limiter } from '../limits/limiter.ts';
import { defineWrite, type Write } from '../writes/write.ts';

/** A write's input with the link it came through: the key its ACTION_LINK charge counts under. */
export type ThroughLink<Input> = Input & { linkKey: string; limiter: Limiter };

/**
 * The console's own write, charged to ACTION_LINK for the link it came through in the same
 * transaction: a retry (the same form nonce) finds its earlier result first and is never charged,
 * and a refusal uncharges the link.
 */
export function throughLink<Input, Result, Reason extends string>(write: Write<Input, Result, Reason>): Write<ThroughLink<Input>, Result, Reason> {
  return defineWrite<ThroughLink<Input>, Result, Reason>({
    ...write,
    name: `${write.name} through an action link`,
    async run(trx, input, refuse) {
      await input.limiter.consume(trx, 'ACTION_LINK', input.linkKey);
      return write.run(trx, input, refuse);
    },
  });
}
