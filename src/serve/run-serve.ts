/**
 * `runServe()`: the engine a Svcfile names, in the foreground (spec §1.1, §1.5). Build the command
 * and print it; check the API settings before anything starts; start the engine; then either
 * show the live view (on a terminal) or forward the engine's output (off one); optionally serve
 * the control API beside it. Resolves to the engine's own exit status, or 0 after a stop that
 * was asked for (q, Ctrl+C, a signal, or POST /v1/stop).
 */
import { constants } from 'node:os';
import { join } from 'node:path';

import { resolveGuardedListen } from '../core/auth/guarded-listen.ts';
import { configPaths } from '../core/config-dir.ts';
import { buildControlApi } from '../core/control-api/app.ts';
import { buildCommand, namedProgram } from '../core/engines/build-command.ts';
import { servedKeepCache } from '../core/engines/keep-cache.ts';
import { printedBinary } from '../core/engines/locate-binary.ts';
import { formatCommand } from '../core/engines/shell-quote.ts';
import { httpUrl, listen } from '../core/http/listen.ts';
import { createLogger, resolveLogLevel } from '../core/logger.ts';
import { Sampler } from '../core/metrics/sampler.ts';
import { readAliases } from '../core/project/aliases.ts';
import { describeOrigin } from '../core/project/load.ts';
import { type OpenedProject, openProject } from '../core/project/open-project.ts';
import {
  type EngineExit,
  type EngineOutput,
  EngineStartError,
} from '../core/runner/engine-process.ts';
import { logSize } from '../core/runner/log-tail.ts';
import { Supervisor } from '../core/runner/supervisor.ts';
import { StateRecord } from '../core/state/record.ts';
import { VERSION } from '../core/version.ts';
import { serveHandlers } from './handlers.ts';
import { runView } from './view/run-view.ts';

export interface ServeOptions {
  readonly target?: string;
  readonly dryRun: boolean;
  /** `--keep-cache` (docs/design.md D32): slots saved at a stop, restored at the next start. */
  readonly keepCache?: boolean;
  readonly api: boolean;
  readonly apiAddr?: string;
  readonly apiTokenFile?: string;
  readonly apiToken?: string;
  readonly logLevel?: string;
  readonly configDir: string;
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdin: NodeJS.ReadStream;
  readonly stdout: NodeJS.WriteStream;
  readonly stderr: NodeJS.WriteStream;
  /** Sampler tick; the view refreshes on a short local cadence (spec §1.1). */
  readonly sampleIntervalMs?: number;
}

/** The engine's status as a process exit status: its code, or 128 + the signal number. */
export function exitStatus(exit: EngineExit): number {
  if (exit.code !== null) {
    return exit.code;
  }
  const number = exit.signal === null ? undefined : constants.signals[exit.signal];
  return 128 + (number ?? 0);
}

/**
 * spec §1.1: serve exits with the engine's status however early the engine exits, so one that
 * exits during start-up gives its status too; undefined for any other failure.
 */
export function earlyExitStatus(error: unknown): number | undefined {
  return error instanceof EngineStartError && error.exit !== undefined
    ? exitStatus(error.exit)
    : undefined;
}

function narration(opened: OpenedProject): string[] {
  const from = describeOrigin(opened.origin);
  const line =
    opened.presetSource !== undefined
      ? `Using preset ${opened.presetSource} (model ${opened.section ?? '?'})`
      : opened.spec.model !== undefined
        ? `Serving ${opened.spec.model} from ${from}`
        : `Starting ${opened.spec.runner} from ${from}`;
  return [...opened.notes, line];
}

export async function runServe(options: ServeOptions): Promise<number> {
  const terminal = options.stdout.isTTY && options.stdin.isTTY;
  const view = !options.dryRun && terminal;
  // docs/design.md D3: supervised (metrics switched on) when the view shows or the API runs; a dry
  // run prints what the same invocation would run, so on a terminal it counts the view it would
  // show.
  const supervised = terminal || options.api;
  const opened = await openProject(options.target, {
    cwd: options.cwd,
    env: options.env,
    aliases: () => readAliases(options.configDir),
    supervised,
  });
  const spec =
    options.keepCache === true
      ? servedKeepCache(opened.spec, join(options.configDir, 'serve', 'slots'))
      : opened.spec;
  const command = buildCommand(spec);
  const bin = printedBinary(
    opened.spec.runner,
    command.bin,
    opened.env['PATH'],
    namedProgram(opened.spec, command),
  );
  const printed = `${formatCommand([bin, ...command.args])}\n`;
  options.stderr.write(`${narration(opened).join('\n')}\n`);
  if (options.dryRun) {
    options.stdout.write(printed);
    return 0;
  }
  // spec §1.1: on a terminal the command goes to stderr; off one it stays on stdout.
  (view ? options.stderr : options.stdout).write(printed);

  // Everything that can refuse is checked before the engine starts (spec §5 rules 2–3).
  const env = opened.env;
  const pendingLines: string[] = [];
  const logger = createLogger(
    resolveLogLevel({ flag: options.logLevel, env: env['SVC_LOG_LEVEL'] }),
    {
      // In the view svc's records show in the title, without the timestamp there is no room for.
      write: view
        ? (line) => pendingLines.push(`svc: ${line.trimEnd().replace(/^\S+ /, '')}`)
        : (line) => options.stderr.write(line),
    },
  );
  const guarded = options.api
    ? await resolveGuardedListen({
        flag: '--api-addr',
        given: options.apiAddr,
        fallback: ':4242',
        tokens: { file: options.apiTokenFile, env: env['SVC_API_TOKEN'], flag: options.apiToken },
      })
    : undefined;
  const address = guarded?.address;
  const token = guarded?.token;

  const { engineLog } = configPaths(options.configDir);
  // docs/design.md D4: captured whenever the view shows or the API runs; off a terminal also
  // forwarded.
  const output: EngineOutput = view
    ? { kind: 'log', path: engineLog }
    : options.api
      ? { kind: 'log+forward', path: engineLog, stdout: options.stdout, stderr: options.stderr }
      : { kind: 'forward' };
  const record = new StateRecord();
  const sampler = new Sampler({
    record,
    intervalMs: options.sampleIntervalMs ?? (view ? 2_000 : 15_000),
  });
  let resolveExit: (status: number) => void = () => undefined;
  let farewell = 'svc serve stopped';
  const finished = new Promise<number>((resolve) => {
    resolveExit = resolve;
  });
  const supervisor = new Supervisor({
    record,
    logger,
    output,
    env: view && env['NO_COLOR'] === undefined ? { ...env, NO_COLOR: '1' } : env,
    // The engine's own exit, however early, is serve's exit status: no start window.
    startWindowMs: 0,
    stopGraceMs: 10_000,
    ...(supervised ? { monitor: sampler } : {}),
    ...(token === undefined ? {} : { secrets: [token.value] }),
    onExit: (exit, requested) => {
      farewell = requested
        ? 'svc serve stopped: the engine was stopped'
        : `svc serve stopped: the engine exited on its own (status ${exitStatus(exit)})`;
      resolveExit(requested ? 0 : exitStatus(exit));
    },
  });
  // Kept so the last line waits for the stop's own records (a kill after the grace period).
  let stopped: Promise<void> = Promise.resolve();
  // An object, not two lets: the signal handler changes it while the start is awaited.
  const phase = { engineStarted: false, stopRequested: false };
  const stop = (): void => {
    phase.stopRequested = true;
    if (!phase.engineStarted) {
      return; // stopped as soon as the start has finished
    }
    stopped = supervisor.stop().catch((error: unknown) => {
      logger.error('could not stop the engine', { reason: (error as Error).message });
    });
  };
  const onSignal = (): void => {
    stop();
  };
  // Taken before the engine starts: a signal during the start still stops it cleanly and serve
  // still prints its last line, instead of Node's default exit.
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The log is appended across runs: the view shows only what this run's engine writes.
  const logFrom = view ? await logSize(engineLog) : 0;
  try {
    await supervisor.start({ spec });
  } catch (error) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    const early = earlyExitStatus(error);
    if (early === undefined) {
      throw error;
    }
    // The view never opened: the reason quotes the log lines it would have shown.
    options.stderr.write(`svc serve stopped: ${(error as Error).message}\n`);
    return early;
  }
  phase.engineStarted = true;
  if (phase.stopRequested) {
    stop();
  }

  let closeApi: (() => Promise<void>) | undefined;
  try {
    if (address !== undefined) {
      const app = buildControlApi({
        logger,
        ...(token === undefined ? {} : { token: token.value }),
        handlers: serveHandlers({
          record,
          supervisor,
          sampler,
          logPath: engineLog,
          version: VERSION,
          now: () => new Date(),
        }),
      });
      await app.ready();
      const bound = await listen(app.server, address);
      closeApi = () => app.close();
      (view ? pendingLines : []).push(`svc: control API listening on ${httpUrl(bound)}`);
      if (!view) {
        options.stderr.write(`svc serve API listening on ${httpUrl(bound)}\n`);
      }
    }
    if (view) {
      await runView({
        input: options.stdin,
        output: options.stdout,
        source: describeOrigin(opened.origin),
        record,
        logPath: engineLog,
        logFrom,
        svcLines: pendingLines,
        finished,
        quit: stop,
        staleAfterMs: 3 * (options.sampleIntervalMs ?? 2_000),
      });
    }
    const status = await finished;
    await stopped;
    // One clear last line once the engine is gone (after the view has left the screen).
    options.stderr.write(`${farewell}\n`);
    return status;
  } catch (error) {
    stop();
    await finished;
    throw error;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    sampler.end();
    await closeApi?.();
  }
}
