/**
 * The gateway's gauges read at scrape time, never on the request path: each node's state and
 * readiness, its reported slots (docs/design.md D25) from the kept snapshots, this gateway's
 * requests on it and how many wait for each model from the scheduler's readout. prom-client
 * collects every metric at once, so the node gauges share one read of the snapshots per scrape.
 */
import { Gauge, type Registry, type RegistryContentType } from 'prom-client';

import { capacityOf } from '../../core/fleet/state/capacity.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import type { SchedulingReadout } from './scheduling-readout.ts';

const NODE_STATES = ['idle', 'running', 'stopped', 'crashed'] as const;

/**
 * Registers the gauges on `registers`. Without `scheduling` (a gateway with no scheduler) the
 * in-flight and queue gauges have no series: unknown is absent, not zero.
 */
export function registerScrapeGauges(
  registers: Registry<RegistryContentType>[],
  snapshots: () => Promise<readonly NodeSnapshot[]>,
  scheduling: SchedulingReadout | undefined,
): void {
  let reading: Promise<void> | undefined;
  const readNodes = (): Promise<void> => {
    reading ??= snapshots()
      .then((current) => {
        state.reset();
        ready.reset();
        inFlight.reset();
        slots.reset();
        for (const snapshot of current) {
          const node = snapshot.node.name;
          if (scheduling !== undefined) {
            // The gateway's own count: known whether or not the node answers.
            inFlight.set({ node }, scheduling.inFlight(node));
          }
          if (!snapshot.ok) {
            state.set({ node, state: snapshot.outcome }, 1);
            continue;
          }
          for (const name of NODE_STATES) {
            state.set({ node, state: name }, snapshot.status.state === name ? 1 : 0);
          }
          if (snapshot.status.ready !== undefined) {
            ready.set({ node }, snapshot.status.ready === 'ready' ? 1 : 0);
          }
          const reported =
            snapshot.status.state === 'running' ? capacityOf(snapshot.status).slots : undefined;
          if (reported !== undefined) {
            slots.set({ node }, reported);
          }
        }
      })
      .finally(() => {
        reading = undefined;
      });
    return reading;
  };
  const state = new Gauge({
    name: 'svc_gateway_node_state',
    help: "1 for each node's current engine state (idle, running, stopped, crashed) or why it did not answer (unreachable, unauthorized, unsupported, failed).",
    labelNames: ['node', 'state'],
    registers,
    collect: readNodes,
  });
  const ready = new Gauge({
    name: 'svc_gateway_node_ready',
    help: "1 when the node's running engine last answered its health check, 0 when not; absent where the node reports no readiness.",
    labelNames: ['node'],
    registers,
    collect: readNodes,
  });
  const inFlight = new Gauge({
    name: 'svc_gateway_node_in_flight',
    help: "This gateway's requests on the node now, from dispatch to the reply's end.",
    labelNames: ['node'],
    registers,
    collect: readNodes,
  });
  const slots = new Gauge({
    name: 'svc_gateway_node_slots',
    help: "The running node's request slots as it reports them; absent where it reports none.",
    labelNames: ['node'],
    registers,
    collect: readNodes,
  });
  // A model once queued for stays at 0 rather than vanishing, so rate() and alerts see it empty.
  const seen = new Set<string>();
  const depth = new Gauge({
    name: 'svc_gateway_queue_depth',
    help: 'Requests waiting in the queue now, by the model they ask for.',
    labelNames: ['model'],
    registers,
    collect: () => {
      if (scheduling === undefined) {
        return;
      }
      const queued = scheduling.queued();
      for (const model of queued.keys()) {
        seen.add(model);
      }
      for (const model of seen) {
        depth.set({ model }, queued.get(model) ?? 0);
      }
    },
  });
}
