/**
 * The `daemon` node kind (docs/design.md D21): an svc daemon reached over its control API (spec
 * §4.1). A wake sends it the config its own Svcfile source resolves to, with its engine key.
 */
import type { DaemonNode } from '../file/fleet-file.ts';
import { withKeepCache } from '../file/node-keep-cache.ts';
import { nodeSourceConfig } from '../load/load-fleet.ts';
import { nodeLogs, nodeMetrics, nodeStart, nodeStatus, nodeStop } from './node-client.ts';
import { deployConfigOf, type DriverContext, type NodeDriver } from './node-driver.ts';

export function daemonDriver(context: DriverContext): NodeDriver<DaemonNode> {
  return {
    status: (node, timeoutMs) => nodeStatus(node, timeoutMs),
    wakeSource: (node) => nodeSourceConfig(context.fleet, node, context),
    start: (node, source) => nodeStart(node, withKeepCache(deployConfigOf(source), node)),
    stop: (node) => nodeStop(node),
    stats: (node) => nodeMetrics(node),
    logs: (node, query) => nodeLogs(node, query),
  };
}
