/**
 * A daemon node's control API, as the daemon driver (daemon-driver.ts) drives it: over HTTP only,
 * with the contract's records (spec §4.1), the node's own token, and a timeout on every call.
 */
import { Agent, request } from 'undici';

import type { DeployConfig, LogsResponse, Stats, StatusResponse } from '../../contract/schemas.ts';
import { answerDeadline } from '../../http/answer-deadline.ts';
import type { DaemonNode } from '../file/fleet-file.ts';
import {
  type LogsQuery,
  logsSearch,
  type NodeOutcome,
  type NodeReply,
  STATUS_TIMEOUT_MS,
} from './node-driver.ts';

/**
 * Control-API connections are short-lived and few: one per node at most, and a status call closes
 * its connection when answered (`reset`), so a fleet of thousands holds no descriptor per node at
 * rest (a daemon's keep-alive hint of 72 s would otherwise keep one open per node). The callers
 * bound how many calls run at once; the engine proxy has its own dispatcher, so control calls
 * never take connections from completions.
 */
const agent = new Agent({ connections: 1, keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });

export function controlUrl(node: DaemonNode): string {
  const host = node.host.includes(':') && !node.host.startsWith('[') ? `[${node.host}]` : node.host;
  return `http://${host}:${node.port}`;
}

async function call<T>(
  node: DaemonNode,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  timeoutMs: number,
  reset = false,
): Promise<NodeReply<T>> {
  const url = `${controlUrl(node)}${path}`;
  const deadline = answerDeadline(timeoutMs);
  try {
    const reply = await request(url, {
      method,
      dispatcher: agent,
      reset,
      signal: deadline.signal,
      headers: {
        ...(node.token === undefined ? {} : { authorization: `Bearer ${node.token}` }),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await reply.body.text();
    if (reply.statusCode === 200) {
      return { ok: true, value: JSON.parse(text) as T };
    }
    let detail = `HTTP ${reply.statusCode}`;
    try {
      const error = (JSON.parse(text) as { error?: unknown }).error;
      if (typeof error === 'string') {
        detail = `${detail}: ${error}`;
      }
    } catch {
      // not JSON
    }
    const outcome: NodeOutcome =
      reply.statusCode === 401
        ? 'unauthorized'
        : reply.statusCode === 404
          ? 'unsupported'
          : 'failed';
    return { ok: false, outcome, status: reply.statusCode, detail };
  } catch (error) {
    return { ok: false, outcome: 'unreachable', detail: `${url}: ${(error as Error).message}` };
  } finally {
    deadline.clear();
  }
}

export function nodeStatus(
  node: DaemonNode,
  timeoutMs = STATUS_TIMEOUT_MS,
): Promise<NodeReply<StatusResponse>> {
  return call<StatusResponse>(node, 'GET', '/v1/status', undefined, timeoutMs, true);
}

export function nodeStart(
  node: DaemonNode,
  config: DeployConfig,
  timeoutMs = 30_000,
): Promise<NodeReply<StatusResponse>> {
  const body = node.engineKey === undefined ? config : { ...config, engineApiKey: node.engineKey };
  return call<StatusResponse>(node, 'POST', '/v1/start', body, timeoutMs);
}

export function nodeStop(node: DaemonNode, timeoutMs = 30_000): Promise<NodeReply<StatusResponse>> {
  return call<StatusResponse>(node, 'POST', '/v1/stop', undefined, timeoutMs);
}

export function nodeMetrics(
  node: DaemonNode,
  timeoutMs = STATUS_TIMEOUT_MS,
): Promise<NodeReply<Stats>> {
  return call<Stats>(node, 'GET', '/v1/metrics', undefined, timeoutMs, true);
}

/** One bounded slice of the node's engine log (spec §4.1 rule 5): from `offset`, else its end. */
export function nodeLogs(
  node: DaemonNode,
  query: LogsQuery,
  timeoutMs = STATUS_TIMEOUT_MS,
): Promise<NodeReply<LogsResponse>> {
  return call<LogsResponse>(
    node,
    'GET',
    `/v1/logs${logsSearch(query)}`,
    undefined,
    timeoutMs,
    true,
  );
}
