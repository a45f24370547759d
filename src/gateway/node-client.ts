/**
 * A daemon node's control API, as the gateway and `svc fleet` drive it: over HTTP only, with the
 * contract's records (spec §4.1), the node's own token, and a timeout on every call.
 */
import { Agent, request } from 'undici';

import type { DeployConfig, StatusResponse } from '../core/contract/schemas.ts';
import type { FleetNode } from './fleet-file.ts';

const agent = new Agent({ keepAliveTimeout: 4_000, connections: 8 });

export type NodeOutcome = 'unreachable' | 'unauthorized' | 'unsupported' | 'failed';

export type NodeReply<T> =
  { ok: true; value: T } | { ok: false; outcome: NodeOutcome; status?: number; detail: string };

export function controlUrl(node: FleetNode): string {
  const host = node.host.includes(':') && !node.host.startsWith('[') ? `[${node.host}]` : node.host;
  return `http://${host}:${node.port}`;
}

async function call<T>(
  node: FleetNode,
  method: 'GET' | 'POST',
  path: string,
  body: unknown,
  timeoutMs: number,
): Promise<NodeReply<T>> {
  const url = `${controlUrl(node)}${path}`;
  try {
    const reply = await request(url, {
      method,
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
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
  }
}

export function nodeStatus(node: FleetNode, timeoutMs = 5_000): Promise<NodeReply<StatusResponse>> {
  return call<StatusResponse>(node, 'GET', '/v1/status', undefined, timeoutMs);
}

export function nodeStart(
  node: FleetNode,
  config: DeployConfig,
  timeoutMs = 30_000,
): Promise<NodeReply<StatusResponse>> {
  const body = node.engineKey === undefined ? config : { ...config, engineApiKey: node.engineKey };
  return call<StatusResponse>(node, 'POST', '/v1/start', body, timeoutMs);
}

export function nodeStop(node: FleetNode, timeoutMs = 30_000): Promise<NodeReply<StatusResponse>> {
  return call<StatusResponse>(node, 'POST', '/v1/stop', undefined, timeoutMs);
}
