/**
 * What each control-API call does under the daemon (spec §4.1): start from the carried or the
 * stored config, stop, push a config, read the log, report status and metrics from the record.
 */
import type { DeployConfig, StartRequest } from '../core/contract/schemas.ts';
import type { ControlHandlers } from '../core/control-api/app.ts';
import { ENGINES } from '../core/engines/engine-table.ts';
import { specFromDeployConfig } from '../core/engines/from-deploy-config.ts';
import { locateBinary } from '../core/engines/locate-binary.ts';
import { SvcError } from '../core/errors.ts';
import type { Logger } from '../core/logger.ts';
import type { Sampler } from '../core/metrics/sampler.ts';
import { readLogSlice } from '../core/runner/engine-log.ts';
import type { Supervisor } from '../core/runner/supervisor.ts';
import { type StateRecord, statsOf, statusOf } from '../core/state/record.ts';
import type { DeployStore } from './deploy-store.ts';

export interface DaemonHandlerDeps {
  readonly record: StateRecord;
  readonly supervisor: Supervisor;
  readonly sampler: Pick<Sampler, 'refreshTokens'>;
  readonly store: DeployStore;
  readonly logPath: string;
  readonly version: string;
  readonly pathVariable: string | undefined;
  readonly now: () => Date;
  readonly logger: Logger;
  /** docs/design.md D32: `<config dir>/daemon/slots/`, where a keepCache engine saves its slots. */
  readonly slotDir: string;
}

function splitKey(body: StartRequest): { config: DeployConfig; key: string | undefined } {
  const { engineApiKey, ...config } = body;
  return { config, key: engineApiKey };
}

export function daemonHandlers(deps: DaemonHandlerDeps): ControlHandlers {
  const { record, supervisor, store } = deps;
  const status = () => statusOf(record.snapshot(), deps.now(), deps.version);

  /** Validate and prepare: the spec to run, or a 400 naming what is wrong (nothing stored yet). */
  const prepare = (config: DeployConfig, key: string | undefined) => {
    const spec = specFromDeployConfig(config, {
      ...(key === undefined ? {} : { keyFile: store.runKeyPath }),
      slotDir: deps.slotDir,
    });
    if (locateBinary(config.runner, deps.pathVariable) === undefined) {
      // docs/design.md D6: a runner this host cannot serve is one whose binary is not here.
      throw new SvcError(
        'ERR_DEPLOY_CONFIG',
        `runner ${config.runner} cannot be served on this host: ${ENGINES[config.runner].binaries.join(' or ')} not found on PATH`,
      );
    }
    return spec;
  };

  // Starts run one at a time: a second start waits, then finds the engine running (409), so it
  // can never overwrite the key file the first one's engine is about to read.
  let startChain: Promise<unknown> = Promise.resolve();
  const serialized = <T>(run: () => Promise<T>): Promise<T> => {
    const next = startChain.then(run, run);
    startChain = next.catch(() => undefined);
    return next;
  };

  return {
    status,
    // spec §3: reading metrics feeds the record like a sampler tick, without being activity itself.
    async metrics() {
      await deps.sampler.refreshTokens();
      return statsOf(record.snapshot(), deps.now());
    },
    lifetime: () => record.snapshot().lifetime,

    start: (body) =>
      serialized(async () => {
        if (supervisor.running) {
          throw new SvcError(
            'ERR_ENGINE_RUNNING',
            'an engine is already running; stop it first (nothing was changed)',
          );
        }
        let config: DeployConfig;
        let key: string | undefined;
        let commit: (() => Promise<void>) | undefined;
        if (body !== undefined) {
          ({ config, key } = splitKey(body as StartRequest));
          const carried = config;
          const carriedKey = key;
          commit = () => store.save(carried, carriedKey);
        } else {
          const stored = await store.load();
          if (stored === undefined) {
            throw new SvcError(
              'ERR_NOTHING_TO_SERVE',
              'nothing to serve: the start carried no deploy config and none is stored (PUT /v1/deploy-config, or start with a body)',
            );
          }
          config = stored.config;
          key = await store.readKey();
        }
        // spec §1.6: a config refused here is a refused request (the API logs it at warn); an
        // engine that then fails to start is an error, which the supervisor logs.
        const spec = prepare(config, key);
        if (key === undefined) {
          await store.clearRunKey();
        } else {
          await store.writeRunKey(key);
        }
        const secrets = key === undefined ? [] : [key];
        try {
          await supervisor.start(
            commit === undefined ? { spec, secrets } : { spec, commit, secrets },
          );
        } catch (error) {
          await store.clearRunKey();
          throw error;
        }
        return status();
      }),

    // A stop waits for a start in flight, then stops what it started.
    stop: () =>
      serialized(async () => {
        await supervisor.stop();
        return status();
      }),

    logs: (read) => readLogSlice(deps.logPath, read),

    async deployConfig(body) {
      const { config, key } = splitKey(body as StartRequest);
      prepare(config, key);
      await store.save(config, key);
      // spec §4.1 rule 4: a running engine is untouched; say when the change takes effect.
      return {
        message: supervisor.running
          ? 'deploy config stored; the running engine is untouched and the change applies at the next start'
          : 'deploy config stored; it applies at the next start',
      };
    },
  };
}
