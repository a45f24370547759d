/**
 * The `local` node kind (docs/design.md D27): an engine the gateway supervises itself
 * (local-engines.ts), answering with the daemon's own records, so status, stats, activity and
 * readiness follow the same rules as a daemon node's (spec §3). A wake starts the config its
 * `file:` resolves to, on the port its BASEURL names, else its `engine.port`, else a free loopback
 * port (reported in status as `engine.port`), with the environment `svc serve` would give that
 * Svcfile's engine.
 */
import type { DeployConfig } from '../../contract/schemas.ts';
import { buildCommand } from '../../engines/build-command.ts';
import { lastFlagValue } from '../../engines/engine-endpoint.ts';
import type { EngineSpec } from '../../engines/engine-spec.ts';
import { ENGINES } from '../../engines/engine-table.ts';
import { specFromDeployConfig } from '../../engines/from-deploy-config.ts';
import { SvcError } from '../../errors.ts';
import { readLogSlice } from '../../runner/engine-log.ts';
import { EngineStartError } from '../../runner/engine-process.ts';
import { statsOf, statusOf } from '../../state/record.ts';
import { VERSION } from '../../version.ts';
import type { LocalNode } from '../file/fleet-file.ts';
import { withKeepCache } from '../file/node-keep-cache.ts';
import { localNodeSource } from '../load/load-fleet.ts';
import type { LocalEngines } from './local-engines.ts';
import {
  deployConfigOf,
  type DriverContext,
  type NodeDriver,
  type NodeReply,
  type NodeSource,
} from './node-driver.ts';

export interface LocalDriverEdges {
  readonly now: () => Date;
  /** A port nothing listens on at 127.0.0.1 now (free-port.ts). */
  readonly freePort: () => Promise<number>;
}

/**
 * Where the engine listens: the fleet file's `engine.port` wins over BASEURL's (engines take the
 * last flag); with neither, a free loopback port, the host made loopback too unless BASEURL named
 * one. Returns the config with the bind flags appended.
 */
export async function withPort(
  config: DeployConfig,
  node: LocalNode,
  freePort: () => Promise<number>,
): Promise<DeployConfig> {
  const engine = ENGINES[config.runner];
  const args = config.serveArgs ?? [];
  if (node.engine?.port !== undefined) {
    return { ...config, serveArgs: [...args, engine.port.flag, String(node.engine.port)] };
  }
  if (lastFlagValue(args, engine.port.flag) !== undefined) {
    return config;
  }
  const hostArgs =
    lastFlagValue(args, engine.host.flag) === undefined ? [engine.host.flag, '127.0.0.1'] : [];
  return {
    ...config,
    serveArgs: [...args, ...hostArgs, engine.port.flag, String(await freePort())],
  };
}

/** Free ports tried for one start: each pick can be lost to another process before the bind. */
export const PORT_TRIES = 3;

/**
 * The engine could not bind its port (llama-server's "couldn't bind HTTP server socket", Python's
 * EADDRINUSE), as its start failure quotes its log.
 */
export function portTaken(error: unknown): boolean {
  return (
    error instanceof EngineStartError &&
    /couldn't bind|address already in use|EADDRINUSE/i.test(error.message)
  );
}

/**
 * withPort for a spec run as it is (a `PROVIDER command`, an ENGINE build): the fleet file's
 * `engine.port`, else the port its Svcfile or preset states, else a free loopback one. For a
 * command this is the port `${PORT}` becomes (docs/design.md D31).
 */
export async function specWithPort(
  spec: EngineSpec,
  node: LocalNode,
  freePort: () => Promise<number>,
): Promise<EngineSpec> {
  if (node.engine?.port !== undefined) {
    return { ...spec, port: node.engine.port };
  }
  const portFlag = ENGINES[spec.runner].port?.flag;
  const stated =
    spec.port !== undefined ||
    (portFlag !== undefined && lastFlagValue(buildCommand(spec).args, portFlag) !== undefined);
  if (stated) {
    return spec;
  }
  return { ...spec, host: spec.host ?? '127.0.0.1', port: await freePort() };
}

/** The spec a wake runs: the source's own, or the one its deploy config describes. */
async function specToRun(
  source: NodeSource,
  node: LocalNode,
  keyFile: string | undefined,
  slotDir: string,
  freePort: () => Promise<number>,
): Promise<EngineSpec> {
  const key = keyFile === undefined ? {} : { keyFile };
  if (source.spec !== undefined) {
    return { ...(await specWithPort(source.spec, node, freePort)), ...key };
  }
  const config = withKeepCache(deployConfigOf(source), node);
  return specFromDeployConfig(await withPort(config, node, freePort), { ...key, slotDir });
}

function failure(error: unknown, status: number): NodeReply<never> {
  return { ok: false, outcome: 'failed', status, detail: (error as Error).message };
}

/** spec §7: a start already running is 409, a refused or failed start 400, a stuck stop 500. */
function statusOfError(error: unknown): number {
  const code = error instanceof SvcError ? error.code : undefined;
  return code === 'ERR_ENGINE_RUNNING' ? 409 : code === 'ERR_ENGINE_STUCK' ? 500 : 400;
}

export function localDriver(
  context: DriverContext,
  engines: LocalEngines,
  edges: LocalDriverEdges,
): NodeDriver<LocalNode> {
  const status = (node: LocalNode) =>
    statusOf(engines.engine(node).record.snapshot(), edges.now(), VERSION);
  return {
    status: (node) => Promise.resolve({ ok: true, value: status(node) }),
    wakeSource: (node) => localNodeSource(context.fleet, node, context),
    start: (node, source) => {
      const engine = engines.engine(node);
      return engine.serialized(async () => {
        try {
          if (engine.supervisor.running) {
            throw new SvcError(
              'ERR_ENGINE_RUNNING',
              `node "${node.name}" already runs an engine; stop it first (nothing was changed)`,
            );
          }
          const key = node.engineKey;
          if (key !== undefined && ENGINES[source.config.runner].keyFileFlag === undefined) {
            throw new SvcError(
              'ERR_ENGINE_UNAVAILABLE',
              `node "${node.name}" runs a PROVIDER command program, which svc cannot gate with an engine key: remove engineKey from the node (docs/design.md D31)`,
            );
          }
          // A port we picked free may be taken before the engine binds it: pick another.
          for (let tries = 1; ; tries += 1) {
            const picked: number[] = [];
            const spec = await specToRun(
              source,
              node,
              key === undefined ? undefined : engine.paths.key,
              engine.paths.slots,
              async () => {
                picked.push(await edges.freePort());
                return picked[0] ?? 0;
              },
            );
            try {
              // docs/design.md D27: the environment `svc serve` would give it from the same
              // Svcfile.
              await engine.start(
                { spec, ...(source.env === undefined ? {} : { env: source.env }) },
                key,
              );
              return { ok: true, value: status(node) };
            } catch (error) {
              if (picked.length === 0 || tries >= PORT_TRIES || !portTaken(error)) {
                throw error;
              }
            }
          }
        } catch (error) {
          return failure(error, statusOfError(error));
        }
      });
    },
    stop: (node, options) => {
      const engine = engines.engine(node);
      return engine.serialized(async () => {
        try {
          await engine.stop(options);
          return { ok: true, value: status(node) };
        } catch (error) {
          return failure(error, statusOfError(error));
        }
      });
    },
    // spec §3: reading metrics feeds the record like a sampler tick, without being activity itself.
    stats: async (node) => {
      const engine = engines.engine(node);
      await engine.watcher.refreshTokens();
      return { ok: true, value: statsOf(engine.record.snapshot(), edges.now()) };
    },
    logs: async (node, query) => {
      try {
        return { ok: true, value: await readLogSlice(engines.engine(node).paths.log, query) };
      } catch (error) {
        return failure(error, 400);
      }
    },
  };
}
