/**
 * What the supervisor touches outside itself: the clock, the engine process start, the binary
 * lookup, the engine's health check (with its key file) and the pid record. Injected, the real
 * ones by default, so its start, crash and stop rules have unit tests with a fake engine.
 */
import type { EngineDefinition, Runner } from '../engines/engine-table.ts';
import { locateBinary } from '../engines/locate-binary.ts';

export { missingProgram } from '../engines/locate-binary.ts';
import { readKeyFile } from '../fs/read-key-file.ts';
import { checkReadiness } from '../metrics/readiness.ts';
import {
  type EngineProcess,
  type EngineProcessOptions,
  startEngineProcess,
} from './engine-process.ts';
import { clearPidRecord, type PidRecord, writePidRecord } from './pid-record.ts';
import { procStat } from './process-group.ts';
import { httpSlotCacheClient, type SlotCacheClientFactory } from './slot-cache-client.ts';
import { runStopCommand } from './stop-command.ts';

/** How long one health check within the start window may take. */
const START_PROBE_TIMEOUT_MS = 500;

export interface SupervisorEdges {
  readonly now: () => Date;
  readonly startEngine: (options: EngineProcessOptions) => Promise<EngineProcess>;
  /** The engine binary on `pathVariable`, or undefined (docs/design.md D6). */
  readonly locateBinary: (
    runner: Runner,
    pathVariable: string | undefined,
    program?: string,
  ) => string | undefined;
  /** Whether the engine answers its health check, presenting the key in `keyFile` if any. */
  readonly answers: (
    health: NonNullable<EngineDefinition['health']>,
    baseUrl: string,
    keyFile: string | undefined,
  ) => Promise<boolean>;
  /** docs/design.md D31: a command engine's STOP, bounded by the grace period (stop-command.ts). */
  readonly runStop: typeof runStopCommand;
  /** The record the next daemon reaps a left-over engine by (pid-record.ts). */
  readonly pidRecord: {
    readonly write: (path: string, record: PidRecord) => Promise<void>;
    readonly clear: (path: string) => Promise<void>;
    /** The leader's start time, so a recycled pid is never taken for the engine. */
    readonly startTime: (pid: number) => number | undefined;
  };
  /** Saves and restores a llama-server's slots for `keepCache` (docs/design.md D32). */
  readonly slotCache?: SlotCacheClientFactory;
}

export const SUPERVISOR_EDGES: SupervisorEdges = {
  now: () => new Date(),
  startEngine: (options) => startEngineProcess(options),
  locateBinary,
  runStop: runStopCommand,
  answers: async (health, baseUrl, keyFile) =>
    (await checkReadiness(health, baseUrl, await readKeyFile(keyFile), START_PROBE_TIMEOUT_MS)) ===
    'ready',
  pidRecord: {
    write: writePidRecord,
    clear: clearPidRecord,
    startTime: (pid) => procStat(pid)?.startTime,
  },
  slotCache: httpSlotCacheClient,
};
