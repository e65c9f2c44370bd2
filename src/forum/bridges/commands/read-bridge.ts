import { bridgeKey } from '../../../live/hub.ts';
import { defineWrite } from '../../../writes/write.ts';
import { listBridgeMessages, markSeen, type BridgeKey, type BridgeRole } from '../queries.ts';

/** Reads a bridge for one side and marks the other side's messages seen. */
export const readBridge = defineWrite({
  name: 'owner-bridge read',
  async run(trx, { key, reader, now }: { key: BridgeKey; reader: BridgeRole; now: number }) {
    await markSeen(trx, key, reader === 'agent' ? 'operator' : 'agent', now);
    return listBridgeMessages(trx, key);
  },
  refusals: {},
  // The operator's read moves the agent's seen markers: an agent waiting on the channel sees them.
  wakes: (_messages, { key, reader }) => (reader === 'operator' ? [bridgeKey(key.topicId, key.agentId)] : []),
});
