import type { FastifyInstance } from 'fastify';
import type { PostgresRelay } from './postgres-relay.ts';

/** The relay between instances in the metrics: whom it sees listening, and what it sent them. */
export function countRelay(app: FastifyInstance, relay: PostgresRelay): void {
  app.metrics.gauge({
    name: 'parley_live_instances',
    help: 'Instances listening for live updates on this PostgreSQL database as last counted, this one included; 0 while this one is not listening.',
    collect() {
      this.set(relay.listening);
    },
  });
  app.metrics.counter({
    name: 'parley_live_relayed_total',
    help: 'Changes and wake-ups sent to the other instances; none while this instance is the only one listening.',
    collect() {
      this.reset();
      this.inc(relay.relayed);
    },
  });
}
