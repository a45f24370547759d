/**
 * The control API under `serve --api` (spec §1.5): status, metrics and logs answer from the same
 * record and log the foreground view shows; a start is always 409 (the engine is already
 * running); a stop ends the engine, and with it `serve`.
 */
import type { ControlHandlers } from '../core/control-api/app.ts';
import { SvcError } from '../core/errors.ts';
import { HttpError } from '../core/http/http-error.ts';
import type { Sampler } from '../core/metrics/sampler.ts';
import { readLogSlice } from '../core/runner/engine-log.ts';
import type { Supervisor } from '../core/runner/supervisor.ts';
import { type StateRecord, statsOf, statusOf } from '../core/state/record.ts';

export interface ServeHandlerDeps {
  readonly record: StateRecord;
  readonly supervisor: Supervisor;
  readonly sampler: Pick<Sampler, 'refreshTokens'>;
  readonly logPath: string;
  readonly version: string;
  readonly now: () => Date;
}

export function serveHandlers(deps: ServeHandlerDeps): ControlHandlers {
  const status = () => statusOf(deps.record.snapshot(), deps.now(), deps.version);
  return {
    status,
    async metrics() {
      await deps.sampler.refreshTokens();
      return statsOf(deps.record.snapshot(), deps.now());
    },
    lifetime: () => deps.record.snapshot().lifetime,
    start: () =>
      Promise.reject(
        new SvcError(
          'ERR_ENGINE_RUNNING',
          'svc serve already runs the engine its Svcfile names; start is not available',
        ),
      ),
    async stop() {
      await deps.supervisor.stop();
      return status();
    },
    logs: (read) => readLogSlice(deps.logPath, read),
    deployConfig: () =>
      Promise.reject(
        new HttpError(
          400,
          'svc serve runs the engine its Svcfile names and takes no deploy config; push it to svc daemon',
        ),
      ),
  };
}
