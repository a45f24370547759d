/**
 * The only code that changes the engine state (spec §3): start, stop, and noticing a crash.
 * A start runs in three steps, validate and prepare, start the engine, and only then commit
 * (store the carried config and key), so a start that fails changes nothing (spec §3 table).
 */

import { buildCommand, engineAddress, engineOf, namedProgram } from '../engines/build-command.ts';
import { configuredSlots } from '../engines/configured-slots.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import type { EngineDefinition } from '../engines/engine-table.ts';
import { SvcError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import type { StateRecord } from '../state/record.ts';
import { engineEnv } from './engine-env.ts';
import {
  describeExit,
  type EngineExit,
  type EngineOutput,
  type EngineProcess,
  EngineStartError,
} from './engine-process.ts';
import { logSize, readLogTail, startFailureMessage } from './log-tail.ts';
import { missingModelFile } from './model-file.ts';
import { redactArgs } from './redact-args.ts';
import { keptCache, prepareSlotDir, restoreSlots, saveSlots } from './slot-cache.ts';
import { stopTerminator, type StopWith, stopWithOf } from './stop-command.ts';
import { missingProgram, SUPERVISOR_EDGES, type SupervisorEdges } from './supervisor-edges.ts';

/** Engine log lines a failed start's 400 quotes, and a crash's `lastExit` keeps. */
export const START_FAILURE_LINES = 10;
export const CRASH_TAIL_LINES = 20;

/** Watches a running engine (the telemetry sampler); told when one starts and when it ends. */
export interface EngineMonitor {
  begin(target: { engine: EngineDefinition; baseUrl: string; keyFile?: string }): void;
  end(): void;
}

export interface SupervisorOptions {
  readonly record: StateRecord;
  readonly logger: Logger;
  /** Where engine output goes; the log path, when there is one, is what status reports. */
  readonly output: EngineOutput;
  /** Where the running engine's PID is recorded for the next daemon to reap (daemon only). */
  readonly pidPath?: string;
  /** The engine's environment (PATH is also where its binary is looked up). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly startWindowMs: number;
  readonly stopGraceMs: number;
  readonly monitor?: EngineMonitor;
  /** Told once per engine when it has exited; `requested` is false for a crash. */
  readonly onExit?: (exit: EngineExit, requested: boolean) => void;
  /** Values never to appear in a quoted log line (the API token); the engine key comes with a launch. */
  readonly secrets?: readonly string[];
}

export interface Launch {
  readonly spec: EngineSpec;
  /** The engine key this start gates the engine with, redacted from quoted log lines. */
  readonly secrets?: readonly string[];
  /** Persist what the start carried; runs only after the engine has started. */
  readonly commit?: () => Promise<void>;
  /**
   * This start's environment in place of the supervisor's (PATH included): a local node's engine
   * runs with what `svc serve` would give it from the Svcfile (docs/design.md D27). Never logged.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

export class Supervisor {
  private engine: EngineProcess | undefined;
  /** The running engine's STOP and environment (docs/design.md D31), when it has one. */
  private stopWith: StopWith | undefined;
  /** Settles once the current engine's exit has been recorded (state, pid record, log line). */
  private exitRecorded: Promise<void> = Promise.resolve();
  private stopping = false;
  /** The running engine's `keepCache` (docs/design.md D32): saved before a graceful stop. */
  private kept: ReturnType<typeof keptCache>;
  /** Where this run's lines begin in the (never rotated) log, and what to redact from them. */
  private tail: { from: number; secrets: readonly string[] } = { from: 0, secrets: [] };
  constructor(
    private readonly options: SupervisorOptions,
    private readonly edges: SupervisorEdges = SUPERVISOR_EDGES,
  ) {}

  /** True from the moment a start is accepted, so two starts can never both launch an engine. */
  private starting = false;

  get running(): boolean {
    return this.engine !== undefined || this.starting;
  }

  /**
   * Throws ERR_ENGINE_RUNNING (409), ERR_ENGINE_UNAVAILABLE or ERR_ENGINE_START_FAILED (400);
   * nothing changes on failure.
   */
  async start(launch: Launch): Promise<void> {
    if (this.running) {
      throw new SvcError('ERR_ENGINE_RUNNING', 'an engine is already running; stop it first');
    }
    this.starting = true;
    try {
      await this.launch(launch);
    } finally {
      this.starting = false;
    }
  }

  private get logPath(): string | undefined {
    return this.options.output.kind === 'forward' ? undefined : this.options.output.path;
  }

  private async lastLines(max: number): Promise<string[]> {
    const path = this.logPath;
    return path === undefined ? [] : readLogTail(path, this.tail.from, max, this.tail.secrets);
  }

  private async launch(launch: Launch): Promise<void> {
    const { record, logger } = this.options;
    const { spec } = launch;
    const engine = engineOf(spec);
    const command = buildCommand(spec);
    const launchEnv = launch.env ?? this.options.env;
    const program = namedProgram(spec, command);
    const bin = this.edges.locateBinary(spec.runner, launchEnv['PATH'], program);
    // What this host lacks refuses the start before anything runs: the caller reports it (spec
    // §1.6: a refused request is a warn; a failed start, below, an error).
    const refuse = (reason: string): never => {
      throw new SvcError('ERR_ENGINE_UNAVAILABLE', reason);
    };
    if (bin === undefined) {
      refuse(missingProgram(command.bin, program, engine.installHint));
      return;
    }
    const missing = missingModelFile(spec.runner, command.args);
    if (missing !== undefined) {
      refuse(`the model file ${missing} does not exist`);
    }
    const path = this.logPath;
    this.tail = {
      from: path === undefined ? 0 : await logSize(path),
      secrets: [...(this.options.secrets ?? []), ...(launch.secrets ?? [])],
    };
    logger.info('starting engine', {
      runner: spec.runner,
      model: spec.model,
      servedName: spec.alias,
    });
    logger.debug('engine command', { command: [bin, ...redactArgs(command.args)].join(' ') });

    const env = engineEnv(launchEnv);
    const { endpoint, baseUrl } = engineAddress(spec, command);
    const health = engine.health;
    await prepareSlotDir(spec.keepCache);
    let started: EngineProcess;
    try {
      started = await this.edges.startEngine({
        bin,
        args: command.args,
        env,
        output: this.options.output,
        startWindowMs: this.options.startWindowMs,
        ...(health === undefined
          ? {}
          : {
              answering: () => this.edges.answers(health, baseUrl, spec.keyFile),
            }),
      });
    } catch (error) {
      const reason = (error as Error).message;
      logger.error('engine start failed', { runner: spec.runner, reason });
      if (!(error instanceof EngineStartError)) {
        throw error;
      }
      // The caller may be remote and cannot open the log: the reply quotes its last lines.
      const lines = await this.lastLines(START_FAILURE_LINES);
      throw new EngineStartError(
        startFailureMessage(reason, lines, this.options.output.kind !== 'log'),
        error.exit,
      );
    }

    try {
      await launch.commit?.();
      if (this.options.pidPath !== undefined) {
        const startTime = this.edges.pidRecord.startTime(started.pid);
        await this.edges.pidRecord.write(this.options.pidPath, {
          pid: started.pid,
          bin,
          startedAt: started.startedAt.toISOString(),
          ...(startTime === undefined ? {} : { startTime }),
        });
      }
    } catch (error) {
      // Committing failed: undo the start so state and storage agree.
      await started.stop(this.options.stopGraceMs);
      throw error;
    }

    this.kept = keptCache(spec, baseUrl, this.edges.slotCache);
    const cacheRestore = this.kept && (await restoreSlots(this.kept, logger));
    this.engine = started;
    this.stopWith = stopWithOf(spec, env, this.logPath, this.edges.runStop);
    this.stopping = false;
    const slots = configuredSlots(spec.runner, command.args);
    record.started({
      runner: spec.runner,
      ...(spec.model === undefined ? {} : { model: spec.model }),
      ...(spec.alias === undefined ? {} : { servedName: spec.alias }),
      startedAt: this.edges.now(),
      endpoint,
      ...(this.options.output.kind === 'forward' ? {} : { logPath: this.options.output.path }),
      ...(slots === undefined ? {} : { slots }),
      ...(cacheRestore === undefined ? {} : { cacheRestore }),
    });
    record.countSlots('slotRestores', cacheRestore?.slots ?? 0);
    this.options.monitor?.begin({
      engine,
      baseUrl,
      ...(spec.keyFile === undefined ? {} : { keyFile: spec.keyFile }),
    });
    logger.info('engine started', {
      runner: spec.runner,
      pid: started.pid,
      args: command.args.length,
    });
    this.exitRecorded = started.exited.then((exit) => this.onExit(started, exit));
  }

  private async onExit(
    engine: EngineProcess,
    exit: { code: number | null; signal: NodeJS.Signals | null },
  ): Promise<void> {
    if (this.engine !== engine) {
      return;
    }
    this.engine = undefined;
    this.options.monitor?.end();
    if (this.options.pidPath !== undefined) {
      await this.edges.pidRecord.clear(this.options.pidPath).catch((error: unknown) => {
        this.options.logger.warn('could not remove the engine pid record', {
          reason: (error as Error).message,
        });
      });
    }
    if (this.stopping) {
      this.options.record.ended('stopped', undefined, exit.code ?? undefined);
      this.options.logger.info('engine exited', { exit: describeExit(exit) });
    } else {
      // docs/design.md D7: any unprompted exit is a crash, whatever its code; never restarted.
      // D23: status keeps how it ended, with the last lines it wrote, until the next start.
      const at = this.edges.now();
      const logTail = await this.lastLines(CRASH_TAIL_LINES).catch(() => []);
      this.options.record.ended('crashed', {
        ...(exit.signal === null ? { exitCode: exit.code ?? -1 } : { signal: exit.signal }),
        at: at.toISOString(),
        logTail,
      });
      // Exit code 0 unprompted is no crash of the engine's own: something outside svc stopped it
      // (a signal it answered cleanly) or it chose to end. Still `crashed` (docs/design.md D7).
      const clean = exit.signal === null && exit.code === 0;
      this.options.logger.error(
        clean ? 'engine exited unprompted, not stopped by svc' : 'engine crashed',
        { exit: describeExit(exit), pid: engine.pid },
      );
    }
    this.options.onExit?.(exit, this.stopping);
  }

  /** Idempotent: 200 when nothing runs. Throws ERR_ENGINE_STUCK (500) if the engine survives SIGKILL. */
  // A graceful stop saves a keepCache engine's slots first, a forced one not (docs/design.md D32).
  async stop(options: { force?: boolean } = {}): Promise<void> {
    const engine = this.engine;
    if (engine === undefined) {
      return;
    }
    this.stopping = true;
    if (this.kept !== undefined && options.force !== true) {
      const saved = await saveSlots(this.kept, this.options.logger, this.options.stopGraceMs);
      this.options.record.countSlots('slotSaves', saved);
    }
    this.options.logger.info('stopping engine', { pid: engine.pid });
    const terminate = stopTerminator(this.stopWith, engine.pid, this.options);
    const outcome = await engine.stop(this.options.stopGraceMs, terminate);
    if (outcome === 'killed') {
      this.options.logger.warn('engine did not exit within the grace period; killed', {
        pid: engine.pid,
        graceMs: this.options.stopGraceMs,
      });
    }
    if (outcome === 'stuck') {
      throw new SvcError(
        'ERR_ENGINE_STUCK',
        `the engine (pid ${engine.pid}) did not exit even after SIGKILL`,
      );
    }
    // The reply is built from the record, so wait until the exit has been written into it.
    await this.exitRecorded;
  }
}
