/**
 * A node's wake and sleep commands (docs/design.md D26), as the gateway runs them: concurrent runs
 * of one node's command share one process, a wake waits for the node's sleep command to end, every
 * end is logged and counted, and the gateway's stop ends whatever still runs. One run's process,
 * time limit and output are command-run.ts's. A run never throws: it ends in an outcome (`ok`,
 * `failed`, `timeout`) with what an error message needs.
 */
import type { Variables } from '../../core/fleet/file/fleet-file.ts';
import type { Logger } from '../../core/logger.ts';
import {
  type NodeCommandKind,
  type NodeCommandOutcome,
  type NodeCommandRequest,
  type RunFacts,
  startCommandRun,
  STOPPED_TEXT,
} from './command-run.ts';
import { NODE_COMMAND_EDGES, type NodeCommandEdges } from './node-command-edges.ts';
import type { HiddenSecrets } from './node-command-env.ts';

export {
  KILL_GRACE_MS,
  type NodeCommandKind,
  type NodeCommandOutcome,
  type NodeCommandRequest,
  OUTPUT_GRACE_MS,
} from './command-run.ts';

/** docs/design.md D26: a sleep command may take this long; a wake command, the wake timeout. */
export const SLEEP_COMMAND_LIMIT_MS = 60_000;

export interface NodeCommandResult extends RunFacts {
  readonly node: string;
  readonly command: NodeCommandKind;
  /** The program (`argv[0]`): the rest may hold what the fleet file chose to pass. */
  readonly program: string;
  readonly seconds: number;
}

/** Hears how each run ended, for `svc_gateway_wake_commands_total{node,outcome}`. */
export interface NodeCommandObserver {
  commandEnded(
    node: string,
    command: NodeCommandKind,
    outcome: NodeCommandOutcome,
    seconds: number,
  ): void;
}

export interface NodeCommandsOptions {
  readonly logger: Logger;
  /** The gateway's environment, filtered for each command. */
  readonly env: Variables;
  /** What no command may see (fleetSecrets()); the values are also redacted from its output. */
  readonly hidden: HiddenSecrets;
  readonly observer?: NodeCommandObserver;
}

/** One line saying how a run ended, for a log record or an error message. */
export function describeResult(result: NodeCommandResult): string {
  const what = `the ${result.command} command (${result.program})`;
  switch (result.outcome) {
    case 'ok':
      return `${what} succeeded`;
    case 'timeout':
      return `${what} did not finish within its time limit and was stopped`;
    case 'failed':
      return result.error !== undefined
        ? `${what} failed: ${result.error}`
        : result.signal !== undefined
          ? `${what} was ended by ${result.signal}`
          : `${what} exited with status ${result.exitCode ?? 'unknown'}`;
  }
}

interface Running {
  readonly result: Promise<NodeCommandResult>;
  readonly stop: () => void;
}

export class NodeCommands {
  private readonly running = new Map<string, Running>();

  constructor(
    private readonly options: NodeCommandsOptions,
    private readonly edges: NodeCommandEdges = NODE_COMMAND_EDGES,
  ) {}

  /**
   * Runs the node's command, or joins the run already going for the same node and command (its
   * limit stands). A wake waits for the node's sleep command to end first, so a machine never
   * suspends right after it was woken.
   */
  run(request: NodeCommandRequest): Promise<NodeCommandResult> {
    const key = keyOf(request.node, request.command);
    const joined = this.running.get(key);
    if (joined !== undefined) {
      return joined.result;
    }
    const sleeping =
      request.command === 'wake' ? this.running.get(keyOf(request.node, 'sleep')) : undefined;
    let stop: () => void = () => undefined;
    let stopped = false;
    const result = (sleeping?.result ?? Promise.resolve())
      .then(async () => {
        const began = this.edges.now();
        if (stopped) {
          return this.ended(request, began, {
            outcome: 'failed',
            error: STOPPED_TEXT,
            lastLines: [],
          });
        }
        const run = startCommandRun(request, { ...this.options, edges: this.edges });
        stop = run.stop;
        return this.ended(request, began, await run.facts);
      })
      .finally(() => this.running.delete(key));
    this.running.set(key, {
      result,
      stop: () => {
        stopped = true;
        stop();
      },
    });
    return result;
  }

  /** Stops every running command's group (the gateway is shutting down); resolves once all ended. */
  async stopAll(): Promise<void> {
    const runs = [...this.running.values()];
    for (const run of runs) {
      run.stop();
    }
    await Promise.all(runs.map((run) => run.result));
  }

  private ended(request: NodeCommandRequest, began: number, facts: RunFacts): NodeCommandResult {
    const { node, command } = request;
    const seconds = Math.max(0, this.edges.now() - began) / 1000;
    const result: NodeCommandResult = {
      node,
      command,
      program: request.argv[0] ?? '',
      ...facts,
      seconds,
    };
    const fields = { node, command, outcome: result.outcome, seconds };
    if (result.outcome === 'ok') {
      this.options.logger.info(`${command} command done`, fields);
    } else {
      this.options.logger.warn(describeResult(result), fields);
    }
    this.options.observer?.commandEnded(node, command, result.outcome, seconds);
    return result;
  }
}

function keyOf(node: string, command: NodeCommandKind): string {
  return `${command}\u0000${node}`;
}
