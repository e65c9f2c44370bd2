import type { Clock } from '../../../clock.ts';
import { bridgeKey } from '../../../live/hub.ts';
import { defineWrite } from '../../../writes/write.ts';
import { listBridgeMessages, markSeen, type BridgeKey, type BridgeRole } from '../queries.ts';

type BridgeRead = { key: BridgeKey; reader: BridgeRole; now: number };

/** One side's read of a bridge, now. */
export function bridgeRead({ clock }: { clock: Clock }, key: BridgeKey, reader: BridgeRole): BridgeRead {
  return { key, reader, now: clock.now() };
}

/** Reads a bridge for one side and marks the other side's messages seen. */
export const readBridge = defineWrite({
  name: 'owner-bridge read',
  async run(trx, { key, reader, now }: BridgeRead) {
    await markSeen(trx, key, reader === 'agent' ? 'operator' : 'agent', now);
    return listBridgeMessages(trx, key);
  },
  refusals: {},
  // The operator's read moves the agent's seen markers: an agent waiting on the channel sees them.
  wakes: (_messages, { key, reader }) => (reader === 'operator' ? [bridgeKey(key.topicId, key.agentId)] : []),
});
