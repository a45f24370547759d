/**
 * The node-kind seam (docs/design.md D21): what the gateway, `/v1/models`, `/v1/fleet`, routing,
 * waking and `svc fleet` need from a node, and nothing about how a kind is reached. Each kind
 * (`daemon`, `remote`) is one driver implementing NodeDriver; `byKind` joins them into one driver
 * that dispatches on the node's kind, so a third kind is one driver plus one fleet-file parse
 * branch.
 */
import type { DeployConfig, LogsResponse, Stats, StatusResponse } from '../../contract/schemas.ts';
import type { EngineSpec } from '../../engines/engine-spec.ts';
import { SvcError } from '../../errors.ts';
import type {
  DaemonNode,
  Fleet,
  FleetNode,
  LocalNode,
  RemoteNode,
  UpstreamNode,
  Variables,
} from '../file/fleet-file.ts';
import type { NodeConfig } from '../file/model-name.ts';

/** What every kind's driver is built from: the fleet, svc's config directory and the environment. */
export interface DriverContext {
  readonly fleet: Fleet;
  readonly configDir: string;
  readonly env: Variables;
}

/** How long a status call waits for a node before it counts as unreachable. */
export const STATUS_TIMEOUT_MS = 5_000;

export type NodeOutcome =
  'unreachable' | 'unauthorized' | 'unsupported' | 'failed' | 'config-error';

export type NodeReply<T> =
  { ok: true; value: T } | { ok: false; outcome: NodeOutcome; status?: number; detail: string };

/**
 * A node's status as the spec's StatusResponse (spec §2.1). A remote environment's control plane
 * has its own state vocabulary (`pending`, `undeployed`, …), passed through untranslated so an
 * operator sees what the cloud says; only `running` means an engine may be routed to. Its
 * `retainUntil` rides along while it is in the future (spec §2.4).
 */
export type NodeStatus = Omit<StatusResponse, 'state' | 'version'> & {
  readonly state: StatusResponse['state'] | (string & Record<never, never>);
  /** Always present from an svc daemon (docs/design.md D1); a control plane may name none. */
  readonly version?: string;
  readonly retainUntil?: string;
};

/** A node's stats (spec §2.4), with a remote environment's state word and instance facts. */
export type NodeStats = Omit<Stats, 'state'> & {
  readonly state: Stats['state'] | (string & Record<never, never>);
  readonly instanceType?: string;
};

/**
 * The deploy config a daemon or remote node is sent; a `PROVIDER command` never reaches one
 * (nodeSourceConfig refuses it: spec §2.7), so meeting one here is a bug.
 */
export function deployConfigOf(source: NodeSource): DeployConfig {
  if (source.config.runner === 'command') {
    throw new SvcError(
      'ERR_INTERNAL',
      `${source.source}: PROVIDER command runs on local nodes only`,
    );
  }
  return source.config;
}

/** What a wake would start on a node, and where that came from (a Svcfile path, a stats reply). */
export interface NodeSource {
  readonly source: string;
  /** A deploy config, or (a local node's only) a `PROVIDER command` that `spec` runs. */
  readonly config: NodeConfig;
  /**
   * A local node's only: the engine spec its Svcfile resolves to, run as it is when a deploy
   * config cannot carry it (`PROVIDER command`, ENGINE; docs/design.md D31, spec §2.7).
   */
  readonly spec?: EngineSpec;
  /**
   * A local node's only (docs/design.md D27): the environment `svc serve` would run the engine with
   * from the same Svcfile (this process's, the `.env` beside the Svcfile, its ENV lines). A deploy
   * config carries none, so nothing here is ever sent to a node; never logged.
   */
  readonly env?: Readonly<Record<string, string>>;
}

export interface StartOptions {
  /** When the caller stops waiting (ms since the epoch); a blocking boot retries until then. */
  readonly deadline?: number;
  /**
   * Through a gateway only (docs/design.md D33): a start into a full group stops the busy member
   * holding it. A node driven directly has no group to hold.
   */
  readonly force?: boolean;
}

export interface StopOptions {
  /**
   * Through a gateway only (docs/design.md D28, D33): stop even with requests in flight or queued
   * there. A node driven directly is stopped whatever runs on it.
   */
  readonly force?: boolean;
}

/** A slice of a node's engine log: from `offset` (a byte cursor), else its end (spec §4.1 rule 5). */
export interface LogsQuery {
  readonly offset?: number;
  readonly limit?: number;
}

/** The query string (`?offset=…&limit=…`, or '') that asks a logs route for `query`'s slice. */
export function logsSearch(query: LogsQuery): string {
  const search = new URLSearchParams();
  if (query.offset !== undefined) {
    search.set('offset', String(query.offset));
  }
  if (query.limit !== undefined) {
    search.set('limit', String(query.limit));
  }
  return search.size === 0 ? '' : `?${search.toString()}`;
}

/**
 * One kind's driver, over the nodes of that kind (`N`); a driver over every kind takes any
 * FleetNode. Function-typed fields, not methods, so a driver of one kind cannot stand in for
 * another's (parameters are checked contravariantly).
 */
export interface NodeDriver<N extends FleetNode = FleetNode> {
  /** The node's status; a node that cannot be asked is a reply saying why, never a throw. */
  readonly status: (node: N, timeoutMs?: number) => Promise<NodeReply<NodeStatus>>;
  /**
   * The config a wake would start: a daemon's own Svcfile source, a remote environment's deployed
   * config. Throws an error naming the node when there is none.
   */
  readonly wakeSource: (node: N) => Promise<NodeSource>;
  /**
   * Starts (wakes) the node with `source` (a daemon is sent its config with its engine key; a
   * remote environment boots as deployed and is sent nothing, spec §4.2 rule 5).
   */
  readonly start: (
    node: N,
    source: NodeSource,
    options?: StartOptions,
  ) => Promise<NodeReply<NodeStatus>>;
  /** `force`: a forced stop (docs/design.md D28), which saves no kept cache (D32). */
  readonly stop: (node: N, options?: StopOptions) => Promise<NodeReply<NodeStatus>>;
  readonly stats: (node: N) => Promise<NodeReply<NodeStats>>;
  /**
   * One slice of the node's engine log. A capability, not every kind's: a kind with no engine log
   * to read leaves it out, and byKind answers `unsupported` for its nodes.
   */
  readonly logs?: (node: N, query: LogsQuery) => Promise<NodeReply<LogsResponse>>;
}

/**
 * One node's start or stop through the gateway the fleet file names, `?force=true` when forced
 * (docs/design.md D28, D33): how `svc fleet` reaches a node whose starts that gateway must decide.
 */
export type GatewayNodeAct = (
  node: FleetNode,
  action: 'start' | 'stop',
  force: boolean,
) => Promise<NodeReply<NodeStatus>>;

/** A driver over a whole fleet: every capability answers, `unsupported` where a kind lacks it. */
export type FleetNodeDriver = NodeDriver & Required<Pick<NodeDriver, 'logs'>>;

export type NodeKind = FleetNode['kind'];

/** One driver per kind, each over the nodes of its own kind. */
export interface KindDrivers {
  readonly daemon: NodeDriver<DaemonNode>;
  readonly remote: NodeDriver<RemoteNode>;
  /** Absent where nothing runs local engines: their nodes answer `unsupported`. */
  readonly local?: NodeDriver<LocalNode>;
  /** docs/design.md D30: a base URL svc never starts or stops; absent: its nodes answer `unsupported`. */
  readonly upstream?: NodeDriver<UpstreamNode>;
}

/** The driver of a kind nothing here can reach: every call says so, naming the node. */
function unreachableKind<N extends FleetNode>(why: string): NodeDriver<N> {
  const no = (node: N): Promise<NodeReply<never>> =>
    Promise.resolve({ ok: false, outcome: 'unsupported', detail: `node "${node.name}": ${why}` });
  return {
    status: no,
    wakeSource: (node) => Promise.reject(new Error(`node "${node.name}": ${why}`)),
    start: no,
    stop: no,
    stats: no,
  };
}

/** One driver over the fleet: each call goes to the driver of the node's kind. */
export function byKind(drivers: KindDrivers): FleetNodeDriver {
  const local =
    drivers.local ??
    unreachableKind<LocalNode>('a local node is run by the gateway, and none is reachable here');
  const upstream =
    drivers.upstream ?? unreachableKind<UpstreamNode>('no upstream driver was given here');
  // The node is narrowed by its kind before it reaches that kind's driver, so no driver is ever
  // handed a node of another kind.
  const call = <R>(
    node: FleetNode,
    run: <N extends FleetNode>(driver: NodeDriver<N>, node: N) => R,
  ): R =>
    node.kind === 'daemon'
      ? run(drivers.daemon, node)
      : node.kind === 'remote'
        ? run(drivers.remote, node)
        : node.kind === 'upstream'
          ? run(upstream, node)
          : run(local, node);

  return {
    status: (node, timeoutMs) => call(node, (driver, own) => driver.status(own, timeoutMs)),
    wakeSource: (node) => call(node, (driver, own) => driver.wakeSource(own)),
    start: (node, source, options) =>
      call(node, (driver, own) => driver.start(own, source, options)),
    stop: (node, options) => call(node, (driver, own) => driver.stop(own, options)),
    stats: (node) => call(node, (driver, own) => driver.stats(own)),
    logs: (node, query) =>
      call(node, (driver, own) =>
        driver.logs === undefined
          ? Promise.resolve({
              ok: false,
              outcome: 'unsupported',
              detail: `a ${node.kind} node has no engine log to read`,
            })
          : driver.logs(own, query),
      ),
  };
}
