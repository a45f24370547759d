/**
 * What `svc fleet` asks of a node, in one place: status, start, stop, and the daemon-only
 * readings (metrics, engine log slices). Every fleet command goes through this interface, never
 * the HTTP client directly, so other node kinds plug in here (GUIDE D21) and the commands' logic
 * gets fast unit tests with a recording driver.
 */
import type {
  DeployConfig,
  LogsResponse,
  Stats,
  StatusResponse,
} from '../core/contract/schemas.ts';
import type { FleetNode } from './fleet-file.ts';
import {
  nodeLogs,
  nodeMetrics,
  type NodeReply,
  nodeStart,
  nodeStatus,
  nodeStop,
} from './node-client.ts';

export interface LogsQuery {
  readonly offset?: number;
  readonly limit?: number;
}

export interface FleetDriver {
  status(node: FleetNode): Promise<NodeReply<StatusResponse>>;
  start(node: FleetNode, config: DeployConfig): Promise<NodeReply<StatusResponse>>;
  stop(node: FleetNode): Promise<NodeReply<StatusResponse>>;
  metrics(node: FleetNode): Promise<NodeReply<Stats>>;
  logs(node: FleetNode, query: LogsQuery): Promise<NodeReply<LogsResponse>>;
}

export const daemonFleetDriver: FleetDriver = {
  status: (node) => nodeStatus(node),
  start: (node, config) => nodeStart(node, config),
  stop: (node) => nodeStop(node),
  metrics: (node) => nodeMetrics(node),
  logs: (node, query) => nodeLogs(node, query),
};
