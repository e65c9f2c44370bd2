import type { Command } from '../../../store/commands.ts';
import { listBridgeMessages, markSeen, type BridgeKey, type BridgeMessageRow, type BridgeRole } from '../queries.ts';

/** Reads a bridge for one side and marks the other side's messages seen. */
export const readBridge: Command<{ key: BridgeKey; reader: BridgeRole; now: number }, BridgeMessageRow[]> = async (trx, { key, reader, now }) => {
  await markSeen(trx, key, reader === 'agent' ? 'operator' : 'agent', now);
  return listBridgeMessages(trx, key);
};
