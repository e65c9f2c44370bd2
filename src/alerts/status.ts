import type { Command, Store } from '../store/store.ts';
import type { AlertOutcome, ChannelName, ChannelReport } from './alerts.ts';
import type { AlertChannelStatusTable } from './tables.ts';

const recordDelivery: Command<AlertChannelStatusTable, void> = async (trx, row) => {
  await trx
    .insertInto('alert_channel_status')
    .values(row)
    .onConflict((conflict) => conflict.column('channel').doUpdateSet({ result: row.result, detail: row.detail, at: row.at }))
    .execute();
};

/** Each channel's last delivery, kept in the store so that every instance's console shows the same. */
export class ChannelStatus {
  constructor(private readonly store: Store) {}

  async record(channel: ChannelName, outcome: AlertOutcome, at: number): Promise<void> {
    const detail = outcome.sent ? 'Delivered.' : outcome.detail;
    await this.store.write(recordDelivery, { channel, result: outcome.sent ? 'sent' : 'failed', detail, at });
  }

  async report(channels: readonly ChannelName[]): Promise<ChannelReport[]> {
    if (channels.length === 0) return [];
    const rows = await this.store.db.selectFrom('alert_channel_status').selectAll().where('channel', 'in', channels).execute();
    return channels.map((channel) => {
      const row = rows.find((one) => one.channel === channel);
      return { channel, lastResult: row?.result, lastDetail: row?.detail, lastAt: row === undefined ? undefined : Number(row.at) };
    });
  }
}
