/**
 * A `PROVIDER command` engine's STOP (docs/design.md D31): run instead of SIGTERM, as its own
 * argv (never through a shell), with the engine's environment, its output appended to the engine
 * log when there is one. Bounded by the stop grace period: still running then, it is killed, and
 * the supervisor kills the engine's process group as for any engine.
 */
import { spawn, type StdioOptions } from 'node:child_process';
import { open } from 'node:fs/promises';

import { stopCommand } from '../engines/build-command.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import type { Logger } from '../logger.ts';

export type StopOutcome = { readonly ok: true } | { readonly ok: false; readonly reason: string };

export async function runStopCommand(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  graceMs: number,
  logPath: string | undefined,
): Promise<StopOutcome> {
  const [bin, ...args] = argv;
  if (bin === undefined) {
    return { ok: false, reason: 'STOP names no program' };
  }
  const log =
    logPath === undefined ? undefined : await open(logPath, 'a', 0o600).catch(() => undefined);
  const stdio: StdioOptions =
    log === undefined ? ['ignore', 'ignore', 'ignore'] : ['ignore', log.fd, log.fd];
  try {
    return await new Promise<StopOutcome>((settle) => {
      const child = spawn(bin, args, { env: { ...env }, stdio });
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
      }, graceMs);
      child.once('error', (error) => {
        clearTimeout(timer);
        settle({ ok: false, reason: `could not run ${bin}: ${error.message}` });
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        settle(
          code === 0
            ? { ok: true }
            : {
                ok: false,
                reason:
                  signal === null
                    ? `${bin} exited with status ${code ?? -1}`
                    : `${bin} did not end within the stop grace period (${graceMs} ms)`,
              },
        );
      });
    });
  } finally {
    await log?.close();
  }
}

/** The running engine's spec (its STOP), environment, log and the STOP runner. */
export interface StopWith {
  readonly spec: EngineSpec;
  readonly env: Readonly<Record<string, string>>;
  readonly logPath: string | undefined;
  readonly run: typeof runStopCommand;
}

/** What a stop needs to run the engine's STOP; undefined when its Svcfile has none. */
export function stopWithOf(
  spec: EngineSpec,
  env: Readonly<Record<string, string>>,
  logPath: string | undefined,
  run: typeof runStopCommand,
): StopWith | undefined {
  return spec.command?.stop === undefined ? undefined : { spec, env, logPath, run };
}

/**
 * What the supervisor's stop calls in place of SIGTERM: runs STOP (`${PID}` replaced) in the
 * background, since the stop waits for the engine's group, not for STOP, and logs a failed one,
 * which is never fatal.
 */
export function stopTerminator(
  stopWith: StopWith | undefined,
  pid: number,
  options: { readonly stopGraceMs: number; readonly logger: Logger },
): (() => void) | undefined {
  const argv = stopWith === undefined ? undefined : stopCommand(stopWith.spec, pid);
  if (stopWith === undefined || argv === undefined) {
    return undefined;
  }
  const { logger } = options;
  return () => {
    logger.info('running the engine stop command', { pid, program: argv[0] });
    void stopWith.run(argv, stopWith.env, options.stopGraceMs, stopWith.logPath).then((outcome) => {
      if (!outcome.ok) {
        logger.warn('the engine stop command failed', { pid, reason: outcome.reason });
      }
    });
  };
}
