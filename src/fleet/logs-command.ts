/**
 * `svc fleet logs [node…] [-f]`: each node's engine log through its own byte cursor
 * (core/runner/log-cursor.ts), lines prefixed by node when several. `-f` keeps polling until Ctrl+C; a
 * node that stops answering (its daemon restarting) is reported once and polled on, and an
 * engine restart is only more lines in the same log (the daemon appends, never rotates: spec §8).
 */
import type { FleetNodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { advance, type LogCursor, START_CURSOR } from '../core/runner/log-cursor.ts';
import { everyUntilShutdown } from '../core/signals.ts';
import { prefixer } from './log-prefix.ts';
import { unreachableByConfig } from './select.ts';

export const FOLLOW_POLL_MS = 500;
/** Slices read per node per poll, so one chatty node cannot starve the others. */
const SLICES_PER_POLL = 16;

export interface LogsCommand {
  readonly fleet: Fleet;
  readonly nodes: readonly FleetNode[];
  readonly json: boolean;
  readonly follow: boolean;
  readonly write: (text: string) => void;
  readonly warn: (line: string) => void;
  readonly driver: Pick<FleetNodeDriver, 'logs'>;
  /** Runs the follow loop (core/signals.ts: until SIGINT or SIGTERM); injected by tests. */
  readonly every?: (intervalMs: number, step: () => Promise<void>, first: boolean) => Promise<void>;
}

interface NodeLog {
  readonly node: FleetNode;
  cursor: LogCursor;
  /** The last failure reported, so a node that stays down is reported once. */
  failing?: string;
}

export async function runLogs(command: LogsCommand): Promise<number> {
  const prefix = prefixer(command.nodes.map((node) => node.name));
  const emit = (node: string, line: string): void => {
    command.write(command.json ? `${JSON.stringify({ node, line })}\n` : `${prefix(node, line)}\n`);
  };
  let failed = false;
  const logs: NodeLog[] = [];
  for (const node of command.nodes) {
    const blocked = unreachableByConfig(node, command.fleet);
    if (blocked === undefined) {
      logs.push({ node, cursor: START_CURSOR });
    } else {
      command.warn(`svc: ${node.name}: ${blocked}`);
      failed = true;
    }
  }

  const poll = async (entry: NodeLog): Promise<void> => {
    for (let slice = 0; slice < SLICES_PER_POLL; slice += 1) {
      const reply = await command.driver.logs(
        entry.node,
        entry.cursor.offset === undefined ? {} : { offset: entry.cursor.offset },
      );
      if (!reply.ok) {
        if (entry.failing !== reply.detail) {
          command.warn(
            `svc: ${entry.node.name}: ${reply.detail}${command.follow ? ' (still trying)' : ''}`,
          );
        }
        entry.failing = reply.detail;
        failed = true;
        return;
      }
      if (entry.failing !== undefined && command.follow) {
        command.warn(`svc: ${entry.node.name}: answering again`);
      }
      delete entry.failing;
      const step = advance(entry.cursor, reply.value);
      if (step.notice !== undefined && !(step.notice === 'no engine log yet' && command.follow)) {
        command.warn(`svc: ${entry.node.name}: ${step.notice}`);
      }
      entry.cursor = step.cursor;
      for (const line of step.lines) {
        emit(entry.node.name, line);
      }
      if (!step.more) {
        return;
      }
    }
  };

  const pollAll = async (): Promise<void> => {
    await Promise.all(logs.map(poll));
  };
  if (command.follow) {
    // The first read runs under the signal's listener: Ctrl+C the moment the first lines show
    // must end the follow cleanly, not through the default action (docs/design.md D17).
    await (command.every ?? everyUntilShutdown)(FOLLOW_POLL_MS, pollAll, true);
    return 0;
  }
  await pollAll();
  // A one-off read shows the unfinished last line too.
  for (const entry of logs) {
    if (entry.cursor.carry !== '') {
      emit(entry.node.name, entry.cursor.carry);
    }
  }
  return failed ? 1 : 0;
}
