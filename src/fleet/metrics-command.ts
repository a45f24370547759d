/**
 * `svc fleet metrics [node…] [-w]`: each node's metrics reply as a table (or JSON). With `-w` it
 * redraws every 2 s until Ctrl+C, with token and request rates from one reading to the next; on a
 * terminal each frame replaces the last, off one the frames follow each other.
 */
import type { Clock } from '../core/clock.ts';
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { mapBounded } from '../core/fleet/state/call-limiter.ts';
import { NODE_STATES_DEFAULTS } from '../core/fleet/state/node-snapshot.ts';
import { everyUntilShutdown } from '../core/signals.ts';
import {
  type CounterReading,
  type MetricsEntry,
  metricsText,
  ratesBetween,
  readingOf,
} from './metrics.ts';
import { unreachableByConfig } from './select.ts';

export const WATCH_INTERVAL_MS = 2_000;

export interface MetricsCommand {
  readonly fleet: Fleet;
  readonly nodes: readonly FleetNode[];
  readonly json: boolean;
  readonly watch: boolean;
  readonly tty: boolean;
  readonly write: (text: string) => void;
  readonly driver: Pick<NodeDriver, 'stats'>;
}

/** One reading of every node, with rates against `previous` (updated in place). */
export async function readMetrics(
  fleet: Fleet,
  nodes: readonly FleetNode[],
  driver: Pick<NodeDriver, 'stats'>,
  previous: Map<string, CounterReading>,
  now: Clock,
): Promise<MetricsEntry[]> {
  return mapBounded(nodes, NODE_STATES_DEFAULTS.concurrency, async (node) => {
    const blocked = unreachableByConfig(node, fleet);
    if (blocked !== undefined) {
      return { node: node.name, outcome: 'config-error', error: blocked };
    }
    const reply = await driver.stats(node);
    if (!reply.ok) {
      return { node: node.name, outcome: reply.outcome, error: reply.detail };
    }
    const reading = readingOf(reply.value, now());
    const rates = ratesBetween(previous.get(node.name), reading);
    if (reading === undefined) {
      previous.delete(node.name);
    } else {
      previous.set(node.name, reading);
    }
    return {
      node: node.name,
      outcome: 'ok',
      metrics: reply.value,
      ...(rates === undefined ? {} : { rates }),
    };
  });
}

export async function runMetrics(command: MetricsCommand): Promise<number> {
  const previous = new Map<string, CounterReading>();
  const frame = async (): Promise<void> => {
    const entries = await readMetrics(
      command.fleet,
      command.nodes,
      command.driver,
      previous,
      Date.now,
    );
    // Watching with --json prints one array per line (JSON Lines), so a reader can split frames.
    const body = command.json
      ? `${command.watch ? JSON.stringify(entries) : JSON.stringify(entries, null, 2)}\n`
      : metricsText(entries);
    command.write(command.watch && command.tty ? `\u001b[H\u001b[2J${body}` : body);
  };
  if (!command.watch) {
    await frame();
    return 0;
  }
  const watchFrame = async (): Promise<void> => {
    await frame();
    if (!command.tty && !command.json) {
      command.write('\n');
    }
  };
  await everyUntilShutdown(WATCH_INTERVAL_MS, watchFrame, true);
  return 0;
}
