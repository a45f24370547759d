/**
 * The engines of a fleet's local nodes (docs/design.md D27), supervised by the gateway itself with
 * the daemon's own parts: one state record, sampler and supervisor per node (the same watchdog and
 * process-group rules, so no engine outlives the gateway however it ends), its engine log, pid
 * record and key file under `<fleet state dir>/nodes/<name>/` (fleet-claim.ts). Built once per
 * gateway; the gateway claims the fleet before it listens, reaps what a dead gateway of the same
 * fleet left once it has bound its address, and stops every engine before it exits.
 */
import { rm } from 'node:fs/promises';
import { join } from 'node:path';

import { SvcError } from '../../errors.ts';
import { writeFileAtomic } from '../../fs/atomic-write.ts';
import type { Logger } from '../../logger.ts';
import { Sampler } from '../../metrics/sampler.ts';
import { reapRecordedEngine } from '../../runner/pid-record.ts';
import { type Launch, Supervisor } from '../../runner/supervisor.ts';
import { SUPERVISOR_EDGES, type SupervisorEdges } from '../../runner/supervisor-edges.ts';
import { StateRecord } from '../../state/record.ts';
import type { LocalNode } from '../file/fleet-file.ts';
import { claimFleet, type FleetClaim } from './fleet-claim.ts';

export interface LocalEnginesOptions {
  /** The fleet's own directory under the config dir (fleetStateDir in fleet-claim.ts). */
  readonly stateDir: string;
  /** The fleet file, as the claim names it. */
  readonly fleetPath: string;
  /** The environment engines run with (PATH is where their binaries are looked up). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly stopGraceMs: number;
  readonly sampleIntervalMs: number;
  readonly startWindowMs?: number;
  /** Values never to appear in a quoted log line (the gateway token). */
  readonly secrets?: readonly string[];
}

/** What one node's engine is watched by; a Sampler, or a fake in tests. */
export interface EngineWatcher {
  begin: Sampler['begin'];
  end: Sampler['end'];
  refreshTokens: Sampler['refreshTokens'];
}

/** What the local engines touch outside themselves; injected so their rules have unit tests. */
export interface LocalEngineEdges {
  readonly supervisor: SupervisorEdges;
  readonly watcher: (record: StateRecord, intervalMs: number) => EngineWatcher;
  /** Takes down the engine group a pid record names, if still alive (pid-record.ts). */
  readonly reap: (pidPath: string) => Promise<number | undefined>;
  readonly writeKey: (path: string, key: string) => Promise<void>;
  readonly removeKey: (path: string) => Promise<void>;
  /** Claims the fleet for this gateway, or throws naming the live gateway that runs it. */
  readonly claim: (
    stateDir: string,
    fleetPath: string,
    nodes: readonly string[],
  ) => Promise<FleetClaim>;
}

export const LOCAL_ENGINE_EDGES: LocalEngineEdges = {
  supervisor: SUPERVISOR_EDGES,
  watcher: (record, intervalMs) => new Sampler({ record, intervalMs }),
  reap: (pidPath) => reapRecordedEngine(pidPath),
  // Exactly `<key>\n`, 0600 in a 0700 directory, as the daemon writes it (spec §5 rule 5).
  writeKey: (path, key) => writeFileAtomic(path, `${key}\n`),
  removeKey: (path) => rm(path, { force: true }),
  claim: (stateDir, fleetPath, nodes) => claimFleet(stateDir, fleetPath, nodes),
};

/** Where one local node keeps its engine's files (docs/design.md D27), in its fleet's dir. */
export interface LocalNodePaths {
  readonly dir: string;
  readonly log: string;
  readonly pid: string;
  readonly key: string;
  /** docs/design.md D32: a keepCache engine's saved slots. */
  readonly slots: string;
}

export function localNodePaths(stateDir: string, name: string): LocalNodePaths {
  const dir = join(stateDir, 'nodes', name);
  return {
    dir,
    log: join(dir, 'engine.log'),
    pid: join(dir, 'engine.pid'),
    key: join(dir, 'engine-api-key'),
    slots: join(dir, 'slots'),
  };
}

/**
 * What every start and stop of a fleet's engines waits for: the fleet claimed, the gateway's
 * address bound and what a dead gateway left reaped (`opened`); `shut` once the gateway stops.
 */
export interface EngineGate {
  opened: Promise<void>;
  shut: boolean;
}

/** One local node's engine: its record, watcher and supervisor, and its calls one at a time. */
export class LocalEngine {
  readonly record = new StateRecord();
  readonly watcher: EngineWatcher;
  readonly supervisor: Supervisor;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly name: string,
    readonly paths: LocalNodePaths,
    private readonly options: LocalEnginesOptions,
    private readonly edges: LocalEngineEdges,
    private readonly gate: EngineGate = { opened: Promise.resolve(), shut: false },
  ) {
    this.watcher = edges.watcher(this.record, options.sampleIntervalMs);
    this.supervisor = new Supervisor(
      {
        monitor: this.watcher,
        record: this.record,
        logger: options.logger,
        output: { kind: 'log', path: paths.log },
        pidPath: paths.pid,
        env: options.env,
        startWindowMs: options.startWindowMs ?? 500,
        stopGraceMs: options.stopGraceMs,
        ...(options.secrets === undefined ? {} : { secrets: options.secrets }),
        // The key file lives only as long as the engine that reads it.
        onExit: () => {
          void edges.removeKey(paths.key).catch(() => undefined);
        },
      },
      edges.supervisor,
    );
  }

  /**
   * Starts and stops run one at a time, as under the daemon: a second start waits, then finds the
   * engine running, so it never rewrites the key file the first one's engine is about to read.
   */
  serialized<T>(run: () => Promise<T>): Promise<T> {
    const next = this.chain.then(() => this.gate.opened).then(run, run);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** Starts `launch`, gated with `key` when given (written to the node's key file first). */
  async start(launch: Launch, key: string | undefined): Promise<void> {
    if (this.gate.shut) {
      throw new SvcError(
        'ERR_ENGINE_UNAVAILABLE',
        `node "${this.name}" is not started: its gateway is stopping`,
      );
    }
    if (key !== undefined) {
      await this.edges.writeKey(this.paths.key, key);
    }
    try {
      await this.supervisor.start({ ...launch, secrets: key === undefined ? [] : [key] });
    } catch (error) {
      await this.edges.removeKey(this.paths.key).catch(() => undefined);
      throw error;
    }
    // docs/design.md D27: a port chosen free is told here as well as in status (engine.port).
    this.options.logger.info('local node engine listening', {
      node: this.name,
      port: this.record.snapshot().run?.endpoint.port,
      log: this.paths.log,
    });
  }

  async stop(options: { force?: boolean } = {}): Promise<void> {
    await this.supervisor.stop(options);
    await this.edges.removeKey(this.paths.key).catch(() => undefined);
  }
}

export class LocalEngines {
  private readonly engines = new Map<string, LocalEngine>();
  private claim: FleetClaim | undefined;
  private readonly gate: EngineGate = { opened: Promise.resolve(), shut: false };
  private open: () => void = () => undefined;

  constructor(
    readonly options: LocalEnginesOptions,
    private readonly edges: LocalEngineEdges = LOCAL_ENGINE_EDGES,
  ) {}

  /** The node's engine, made on first use. */
  engine(node: LocalNode): LocalEngine {
    let engine = this.engines.get(node.name);
    if (engine === undefined) {
      engine = new LocalEngine(
        node.name,
        localNodePaths(this.options.stateDir, node.name),
        this.options,
        this.edges,
        this.gate,
      );
      this.engines.set(node.name, engine);
    }
    return engine;
  }

  /**
   * Claims the fleet for this gateway before it listens: refused (ERR_FLEET_IN_USE, naming the
   * nodes and the gateway) while another live gateway runs it, with nothing stopped or started.
   * From here every start waits until takeOver() (a keep-warm start is asked for at once).
   */
  async own(nodes: readonly LocalNode[]): Promise<void> {
    const names = nodes.map((node) => node.name);
    this.claim = await this.edges.claim(this.options.stateDir, this.options.fleetPath, names);
    this.gate.opened = new Promise((resolve) => {
      this.open = resolve;
    });
  }

  /**
   * Once the gateway has bound `url`: records it in the claim, reaps what the fleet's previous
   * gateway left (it is gone, or the claim would have been refused), and only then lets the
   * starts asked for meanwhile run, so a reap never takes this gateway's own engine.
   */
  async takeOver(nodes: readonly LocalNode[], url: string): Promise<void> {
    try {
      await this.claim?.bound(url);
      await this.reap(nodes);
    } finally {
      this.open();
    }
  }

  /**
   * Takes down what a previous gateway of this fleet left running (it was killed, so its
   * watchdogs may still be in their grace, or an engine escaped them), as a starting daemon does,
   * so its ports are free again. Returns what it stopped.
   */
  async reap(nodes: readonly LocalNode[]): Promise<{ node: string; pid: number }[]> {
    const results = await Promise.all(
      nodes.map((node) => this.edges.reap(this.engine(node).paths.pid)),
    );
    const reaped: { node: string; pid: number }[] = [];
    nodes.forEach((node, index) => {
      const pid = results[index];
      if (pid !== undefined) {
        this.options.logger.warn('stopped an engine left running by a previous gateway', {
          node: node.name,
          pid,
        });
        reaped.push({ node: node.name, pid });
      }
    });
    return reaped;
  }

  /**
   * Stops every engine (each after whatever start or stop it has under way), then the watchers,
   * and gives the fleet up.
   */
  async stopAll(): Promise<void> {
    // Starts still waiting for the gate (the gateway never listened) are refused, not run.
    this.gate.shut = true;
    this.open();
    const engines = [...this.engines.values()];
    const results = await Promise.allSettled(
      engines.map((engine) => engine.serialized(() => engine.stop())),
    );
    for (const engine of engines) {
      engine.watcher.end();
    }
    const failed = results.find((result) => result.status === 'rejected');
    if (failed !== undefined) {
      throw failed.reason;
    }
    // Only with every engine down: a gateway that finds the claim gone may reap at once.
    await this.claim?.release();
  }
}
