/**
 * Local nodes' engines (docs/design.md D27) over fake edges, for the unit tests of the local driver and of
 * the engines' lifecycle: every engine start is recorded and ends when the test says, key files
 * and pid records live in maps, the fleet claim records what it was asked, and `leftOver` names
 * the nodes whose pid record a previous gateway left (a reap finds pid 4242 there), and a start
 * may be made to fail as an engine's would. No process
 * starts and no time is waited for.
 */
import type { DeployConfig } from '../../../src/core/contract/schemas.ts';
import {
  type LocalEngineEdges,
  LocalEngines,
} from '../../../src/core/fleet/drivers/local-engines.ts';
import type { NodeSource } from '../../../src/core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../../../src/core/fleet/file/fleet-file.ts';
import { createLogger } from '../../../src/core/logger.ts';
import type {
  EngineExit,
  EngineProcess,
  EngineProcessOptions,
} from '../../../src/core/runner/engine-process.ts';

export const AT = new Date('2025-01-01T12:00:00.000Z');
export const CONFIG: DeployConfig = {
  runner: 'llamacpp',
  modelId: 'org/tiny-GGUF',
  servedModelName: 'tiny',
};
export const SOURCE: NodeSource = { source: '/fleet/box/Svcfile', config: CONFIG };

/** The fleet the engines belong to; the driver's context (only local-driver.ts builds one). */
export const FLEET: Fleet = { path: '/fleet/fleet.yaml', nodes: [] };

export interface EnginesHarness {
  readonly engines: LocalEngines;
  readonly launched: EngineProcessOptions[];
  readonly keys: Map<string, string>;
  readonly reaped: string[];
  /** What the fleet claim was asked, in order: `claim <nodes>`, `bound <url>`, `release`. */
  readonly claims: string[];
  readonly stopped: number[];
  /** What the engines logged, info and above. */
  readonly logged: string[];
  exit(index: number, exit: EngineExit): void;
  /** Settles when a key file is first removed: the supervisor has recorded an engine's exit. */
  readonly keyRemoved: Promise<void>;
}

/** `failures`: what the first engine starts throw, one each, before starts succeed. */
export function enginesHarness(
  leftOver: readonly string[] = [],
  failures: readonly Error[] = [],
): EnginesHarness {
  const failing = [...failures];
  const launched: EngineProcessOptions[] = [];
  const exits: ((exit: EngineExit) => void)[] = [];
  const keys = new Map<string, string>();
  const reaped: string[] = [];
  const claims: string[] = [];
  const stopped: number[] = [];
  const logged: string[] = [];
  let removed: () => void = () => undefined;
  const keyRemoved = new Promise<void>((resolve) => {
    removed = resolve;
  });
  const edges: LocalEngineEdges = {
    supervisor: {
      now: () => AT,
      startEngine: (options) => {
        launched.push(options);
        const failure = failing.shift();
        if (failure !== undefined) {
          return Promise.reject(failure);
        }
        const pid = 1000 + launched.length;
        let exit: (value: EngineExit) => void = () => undefined;
        const exited = new Promise<EngineExit>((resolve) => {
          exit = resolve;
        });
        exits.push(exit);
        const process: EngineProcess = {
          pid,
          watchdogPid: pid - 500,
          startedAt: AT,
          exited,
          stop: () => {
            stopped.push(pid);
            exit({ code: null, signal: 'SIGTERM' });
            return Promise.resolve('terminated');
          },
        };
        return Promise.resolve(process);
      },
      locateBinary: () => '/opt/engines/llama-server',
      runStop: () => Promise.resolve({ ok: true }),
      answers: () => Promise.resolve(true),
      pidRecord: {
        write: () => Promise.resolve(),
        clear: () => Promise.resolve(),
        startTime: () => 777,
      },
    },
    watcher: () => ({
      begin: () => undefined,
      end: () => undefined,
      refreshTokens: () => Promise.resolve(),
    }),
    reap: (pidPath) => {
      reaped.push(pidPath);
      return Promise.resolve(
        leftOver.some((name) => pidPath.includes(`/${name}/`)) ? 4242 : undefined,
      );
    },
    writeKey: (path, key) => {
      keys.set(path, key);
      return Promise.resolve();
    },
    removeKey: (path) => {
      keys.delete(path);
      removed();
      return Promise.resolve();
    },
    claim: (stateDir, fleetPath, nodes) => {
      claims.push(`claim ${stateDir} ${fleetPath} ${nodes.join(',')}`);
      return Promise.resolve({
        path: `${stateDir}/gateway.json`,
        bound: (url) => {
          claims.push(`bound ${url}`);
          return Promise.resolve();
        },
        release: () => {
          claims.push('release');
          return Promise.resolve();
        },
      });
    },
  };
  const engines = new LocalEngines(
    {
      stateDir: '/cfg',
      fleetPath: '/fleet/fleet.yaml',
      env: { PATH: '/opt/engines' },
      logger: createLogger('info', { write: (line) => logged.push(line) }),
      stopGraceMs: 10_000,
      sampleIntervalMs: 15_000,
    },
    edges,
  );
  return {
    engines,
    launched,
    keys,
    reaped,
    claims,
    stopped,
    logged,
    exit: (index, exit) => exits[index]?.(exit),
    keyRemoved,
  };
}
