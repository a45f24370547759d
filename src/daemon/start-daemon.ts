/**
 * `startDaemon()`: wires the record, supervisor, deploy store and control API together and
 * listens. The command and the tests both call it; it returns the bound address and a close
 * that stops the engine first (spec §1: only a signal ends the daemon, and then cleanly).
 */
import { join } from 'node:path';

import { configPaths } from '../core/config-dir.ts';
import { buildControlApi } from '../core/control-api/app.ts';
import { listen } from '../core/http/listen.ts';
import type { ListenAddress } from '../core/http/listen-address.ts';
import type { Logger } from '../core/logger.ts';
import { Sampler } from '../core/metrics/sampler.ts';
import { reapRecordedEngine } from '../core/runner/pid-record.ts';
import { Supervisor } from '../core/runner/supervisor.ts';
import { StateRecord } from '../core/state/record.ts';
import { VERSION } from '../core/version.ts';
import { DeployStore } from './deploy-store.ts';
import { daemonHandlers } from './handlers.ts';

export interface DaemonOptions {
  readonly listen: ListenAddress;
  readonly token?: string;
  readonly logger: Logger;
  readonly configDir: string;
  /** Environment engines run with (and where their binaries are looked up). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stopGraceMs: number;
  readonly sampleIntervalMs: number;
  readonly startWindowMs?: number;
}

export interface RunningDaemon {
  readonly address: ListenAddress;
  readonly logPath: string;
  close(): Promise<void>;
}

export async function startDaemon(options: DaemonOptions): Promise<RunningDaemon> {
  const { daemonDir, engineLog } = configPaths(options.configDir);
  const pidPath = `${daemonDir}/engine.pid`;
  const reaped = await reapRecordedEngine(pidPath);
  if (reaped !== undefined) {
    options.logger.warn('stopped an engine left running by a previous daemon', { pid: reaped });
  }

  const record = new StateRecord();
  const sampler = new Sampler({ record, intervalMs: options.sampleIntervalMs });
  const supervisor = new Supervisor({
    monitor: sampler,
    record,
    logger: options.logger,
    output: { kind: 'log', path: engineLog },
    pidPath,
    env: options.env,
    startWindowMs: options.startWindowMs ?? 500,
    stopGraceMs: options.stopGraceMs,
    ...(options.token === undefined ? {} : { secrets: [options.token] }),
  });
  const app = buildControlApi({
    logger: options.logger,
    ...(options.token === undefined ? {} : { token: options.token }),
    handlers: daemonHandlers({
      record,
      supervisor,
      sampler,
      store: new DeployStore(daemonDir),
      logPath: engineLog,
      version: VERSION,
      pathVariable: options.env['PATH'],
      now: () => new Date(),
      logger: options.logger,
      slotDir: join(daemonDir, 'slots'),
    }),
  });
  await app.ready();
  const address = await listen(app.server, options.listen);

  return {
    address,
    logPath: engineLog,
    async close() {
      try {
        await supervisor.stop();
      } finally {
        sampler.end();
        await app.close();
      }
    },
  };
}
