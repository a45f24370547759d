/**
 * The `upstream` node kind (docs/design.md D30): an OpenAI-compatible base URL svc never starts or
 * stops. Its state is `running` while its `/models` answers, else `unreachable`; the check is
 * light (one small GET, its connection closed when answered) and bounded, and is made off the
 * request path by whoever refreshes the fleet. Its key goes in the Authorization header alone and
 * never into a detail: every text here names the node and its URL, never the key.
 */
import { Agent, request } from 'undici';

import { answerDeadline } from '../../http/answer-deadline.ts';
import type { UpstreamNode } from '../file/fleet-file.ts';
import {
  type NodeDriver,
  type NodeOutcome,
  type NodeReply,
  type NodeStats,
  type NodeStatus,
  STATUS_TIMEOUT_MS,
} from './node-driver.ts';

/** Checks are few and short: one connection per origin, closed soon after. */
const agent = new Agent({ connections: 1, keepAliveTimeout: 1_000, keepAliveMaxTimeout: 1_000 });

/** The request headers an upstream is sent: its own key as a bearer token, when it has one. */
export function upstreamHeaders(node: UpstreamNode): Record<string, string> {
  return node.apiKey === undefined ? {} : { authorization: `Bearer ${node.apiKey}` };
}

function outcomeOf(status: number): NodeOutcome {
  return status === 401 || status === 403
    ? 'unauthorized'
    : status === 404
      ? 'unsupported'
      : 'failed';
}

/** `GET <url>/models`, bounded by `timeoutMs`: running when it answers 2xx. */
export async function upstreamStatus(
  node: UpstreamNode,
  timeoutMs = STATUS_TIMEOUT_MS,
): Promise<NodeReply<NodeStatus>> {
  const url = `${node.url}/models`;
  const deadline = answerDeadline(timeoutMs);
  try {
    const reply = await request(url, {
      method: 'GET',
      dispatcher: agent,
      reset: true,
      signal: deadline.signal,
      headers: upstreamHeaders(node),
    });
    // The list itself is not needed: an answer is what the check is for.
    await reply.body.dump();
    if (reply.statusCode >= 200 && reply.statusCode < 300) {
      return {
        ok: true,
        value: {
          state: 'running',
          runner: 'upstream',
          ...(node.slots === undefined ? {} : { slots: node.slots }),
        },
      };
    }
    return {
      ok: false,
      outcome: outcomeOf(reply.statusCode),
      status: reply.statusCode,
      detail: `upstream node "${node.name}" answered ${url} with HTTP ${reply.statusCode}`,
    };
  } catch (error) {
    return {
      ok: false,
      outcome: 'unreachable',
      detail: `upstream node "${node.name}" did not answer at ${url}: ${(error as Error).message}`,
    };
  } finally {
    deadline.clear();
  }
}

/**
 * Its stats are its check: svc runs no engine there, so there are no counters or gauges to read,
 * but `svc fleet metrics`, the dashboard and `/v1/fleet/stats` still show it running or not and
 * the names it serves (docs/design.md D30: kind, state, models).
 */
async function upstreamStats(node: UpstreamNode): Promise<NodeReply<NodeStats>> {
  const reply = await upstreamStatus(node);
  return reply.ok
    ? { ok: true, value: { ...reply.value, servedName: Object.keys(node.models).join(', ') } }
    : reply;
}

/** What a start or stop call gets: svc runs nothing for an upstream node. */
function notRun(node: UpstreamNode): Promise<NodeReply<never>> {
  return Promise.resolve({
    ok: false,
    outcome: 'unsupported',
    detail: `node "${node.name}" is an upstream node: svc never starts or stops it (it serves from ${node.url})`,
  });
}

export function upstreamDriver(): NodeDriver<UpstreamNode> {
  return {
    status: (node, timeoutMs) => upstreamStatus(node, timeoutMs),
    wakeSource: (node) =>
      Promise.reject(
        new Error(
          `node "${node.name}" is an upstream node: svc never starts it, so it has no wake`,
        ),
      ),
    start: notRun,
    stop: notRun,
    stats: upstreamStats,
  };
}
