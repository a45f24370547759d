/**
 * One run of a node's wake or sleep command (docs/design.md D26): the argv started without a shell
 * in a process group of its own, with the filtered environment, its output logged line by line, and
 * a time limit after which the whole group gets SIGTERM, then SIGKILL. Never throws: every end is
 * facts (an outcome, the exit, the last lines). Sharing runs is node-commands.ts's.
 */
import type { Variables } from '../../core/fleet/file/fleet-file.ts';
import type { Logger } from '../../core/logger.ts';
import { CommandOutput } from './command-output.ts';
import type { CommandChild, NodeCommandEdges } from './node-command-edges.ts';
import { commandEnvironment, type HiddenSecrets } from './node-command-env.ts';

export type NodeCommandKind = 'wake' | 'sleep';
/** The metric's words (`svc_gateway_wake_commands_total{node,outcome}`). */
export type NodeCommandOutcome = 'ok' | 'failed' | 'timeout';

/** How long a signalled group has between SIGTERM and SIGKILL. */
export const KILL_GRACE_MS = 5_000;
/**
 * After the command exits, how long its output pipes may stay open: something it left running in
 * the background may hold them, and the run is over when the command itself is.
 */
export const OUTPUT_GRACE_MS = 1_000;

export interface NodeCommandRequest {
  readonly node: string;
  readonly command: NodeCommandKind;
  /** The program and its arguments, passed exactly as written. */
  readonly argv: readonly string[];
  readonly limitMs: number;
}

/** How a run ended. */
export interface RunFacts {
  readonly outcome: NodeCommandOutcome;
  readonly exitCode?: number;
  readonly signal?: NodeJS.Signals;
  /** Why it could not be started (`ENOENT`, …), or that the gateway stopped it. */
  readonly error?: string;
  /** The last output lines, redacted. */
  readonly lastLines: readonly string[];
}

export interface RunContext {
  readonly logger: Logger;
  readonly env: Variables;
  readonly hidden: HiddenSecrets;
  readonly edges: NodeCommandEdges;
}

export interface CommandRun {
  readonly facts: Promise<RunFacts>;
  /** Ends the run now (gateway shutdown): its group is signalled as if its limit had passed. */
  readonly stop: () => void;
}

export const STOPPED_TEXT = 'stopped: the gateway is shutting down';

export function startCommandRun(request: NodeCommandRequest, context: RunContext): CommandRun {
  const { edges, logger, hidden } = context;
  const { node, command, argv, limitMs } = request;
  const [program = '', ...args] = argv;
  const output = new CommandOutput((stream, line) => {
    logger.info(`${command} command output`, { node, command, stream, line });
  }, hidden.values);

  let settle: (facts: RunFacts) => void = () => undefined;
  const facts = new Promise<RunFacts>((resolve) => {
    settle = resolve;
  });
  const cancels: (() => void)[] = [];
  let done = false;
  let timedOut = false;
  let signalled = false;
  let stoppedBy: string | undefined;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  let child: CommandChild | undefined;

  const finish = (error?: string): void => {
    if (done) {
      return;
    }
    done = true;
    for (const cancel of cancels) {
      cancel();
    }
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    output.flush();
    const failure = error ?? stoppedBy;
    settle({
      outcome:
        failure !== undefined
          ? 'failed'
          : timedOut
            ? 'timeout'
            : exit?.code === 0
              ? 'ok'
              : 'failed',
      ...(failure === undefined ? {} : { error: failure }),
      ...(typeof exit?.code === 'number' ? { exitCode: exit.code } : {}),
      ...(typeof exit?.signal === 'string' ? { signal: exit.signal } : {}),
      lastLines: output.lastLines(),
    });
  };

  // Past the limit (or at shutdown): SIGTERM to the group, SIGKILL after the grace, and the run
  // ends a moment later even if a process in uninterruptible sleep outlives the SIGKILL.
  const endGroup = (): void => {
    const pid = child?.pid;
    if (done || pid === undefined) {
      finish();
      return;
    }
    if (signalled) {
      return;
    }
    signalled = true;
    edges.signalGroup(pid, 'SIGTERM');
    cancels.push(
      edges.setTimer(() => {
        edges.signalGroup(pid, 'SIGKILL');
        cancels.push(edges.setTimer(() => finish(), OUTPUT_GRACE_MS));
      }, KILL_GRACE_MS),
    );
  };

  const stop = (): void => {
    if (!done && !timedOut && exit === undefined && stoppedBy === undefined) {
      stoppedBy = STOPPED_TEXT;
      endGroup();
    }
  };

  logger.info(`running ${command} command`, { node, command, program });
  if (program === '') {
    finish('it names no program');
    return { facts, stop };
  }
  try {
    child = edges.spawn(program, args, { env: commandEnvironment(context.env, node, hidden) });
  } catch (error) {
    finish(spawnErrorText(error));
    return { facts, stop };
  }
  child.once('error', (error) => {
    finish(spawnErrorText(error));
  });
  child.once('exit', (code, signal) => {
    exit = { code, signal };
    cancels.push(edges.setTimer(() => finish(), OUTPUT_GRACE_MS));
  });
  child.once('close', (code, signal) => {
    exit ??= { code, signal };
    finish();
  });
  child.stdout?.on('data', (chunk: Buffer) => {
    output.push('stdout', chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output.push('stderr', chunk);
  });
  cancels.push(
    edges.setTimer(
      () => {
        timedOut = true;
        endGroup();
      },
      Math.max(0, limitMs),
    ),
  );
  return { facts, stop };
}

/** The system's word for a failed start (`ENOENT`), never the error's text, which repeats argv. */
function spawnErrorText(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === undefined ? 'it could not be started' : `it could not be started (${code})`;
}
