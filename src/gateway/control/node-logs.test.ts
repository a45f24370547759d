/**
 * `GET /v1/fleet/nodes/{name}/logs`: the daemon's logs query and reply for any node through its
 * driver, operator rights where an operator token is set (docs/design.md D28), every secret the
 * fleet names masked, and the refusals the other node routes make.
 */
import { describe, expect, it } from 'vitest';

import {
  daemonNode,
  localNode,
  remoteNode,
} from '../../../test/support/project-files/fleet-node.ts';
import type { LogsResponse } from '../../core/contract/schemas.ts';
import type { LogsQuery, NodeReply } from '../../core/fleet/drivers/node-driver.ts';
import type { Fleet, FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { type LogsAsk, nodeLogs, type NodeLogsClient, nodeLogsOf } from './node-logs.ts';

const ENGINE_KEY = 'local-engine-key-51';
const NODE_TOKEN = 'daemon-node-token-77';
const OPERATOR_TOKEN = 'operator-token-33';
const GATEWAY_TOKEN = 'gateway-token-12';

const FLEET: Fleet = {
  path: '/etc/svc/fleet.yaml',
  nodes: [
    localNode('qwen', { engineTokenEnv: 'QWEN_KEY', engineKey: ENGINE_KEY }),
    daemonNode('gpu-a', { tokenEnv: 'GPU_A_TOKEN', token: NODE_TOKEN }),
    remoteNode('cloud'),
  ],
  operator: { tokenEnv: 'OPERATOR_TOKEN', token: OPERATOR_TOKEN },
};

const LOG = '/cfg/nodes/qwen/engine.log';

/** A client whose logs read `text` like readLogSlice does, logging every call. */
function client(text: string, answer?: (node: FleetNode) => NodeReply<LogsResponse> | undefined) {
  const calls: string[] = [];
  const logs: NodeLogsClient = {
    logs: (node: FleetNode, query: LogsQuery) => {
      calls.push(`${node.name} ${JSON.stringify(query)}`);
      const own = answer?.(node);
      if (own !== undefined) {
        return Promise.resolve(own);
      }
      const limit = query.limit ?? 65_536;
      const start = query.offset ?? Math.max(0, text.length - limit);
      const content = text.slice(start, start + limit);
      return Promise.resolve({
        ok: true,
        value: { content, nextOffset: start + content.length, size: text.length, path: LOG },
      });
    },
  };
  return { calls, logs };
}

function ask(name: string, query = '', rights: LogsAsk['rights'] = 'operate'): LogsAsk {
  return { name, rights, query };
}

async function reply(logs: NodeLogsClient, asked: LogsAsk): Promise<LogsResponse> {
  return JSON.parse(
    await nodeLogs({ view: { fleet: FLEET }, nodes: logs, token: GATEWAY_TOKEN }, asked),
  ) as LogsResponse;
}

async function refusal(logs: NodeLogsClient, asked: LogsAsk): Promise<GatewayError> {
  const error = await nodeLogs({ view: { fleet: FLEET }, nodes: logs }, asked).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(GatewayError);
  return error as GatewayError;
}

describe('nodeLogsOf', () => {
  it('reads the node of a logs path, and nothing else', () => {
    expect(nodeLogsOf('/v1/fleet/nodes/qwen/logs')).toBe('qwen');
    expect(nodeLogsOf('/v1/fleet/nodes/gpu%20box/logs')).toBe('gpu box');
    expect(nodeLogsOf('/v1/fleet/nodes/qwen/stop')).toBeUndefined();
    expect(nodeLogsOf('/v1/fleet/nodes/a/b/logs')).toBeUndefined();
    expect(nodeLogsOf('/v1/fleet/nodes/%E0%A4%A/logs')).toBeUndefined();
  });
});

describe('GET /v1/fleet/nodes/{name}/logs', () => {
  it("answers a local node's LogsResponse from its driver: its end when no offset is asked", async () => {
    const { calls, logs } = client('one\ntwo\n');
    expect(await reply(logs, ask('qwen'))).toEqual({
      content: 'one\ntwo\n',
      nextOffset: 8,
      size: 8,
      path: LOG,
    });
    expect(calls).toEqual(['qwen {}']);
  });

  it('passes offset and limit on as the daemon route takes them', async () => {
    const { calls, logs } = client('one\ntwo\n');
    expect(await reply(logs, ask('qwen', 'offset=4&limit=2'))).toMatchObject({
      content: 'tw',
      nextOffset: 6,
    });
    expect(calls).toEqual(['qwen {"offset":4,"limit":2}']);
  });

  it.each([
    ['offset=-1', 'offset must be at least 0'],
    ['limit=0', 'limit must be at least 1'],
    ['offset=abc', 'offset must be a whole number'],
    ['limit=1.5', 'limit must be a whole number'],
    ['offset=1&offset=2', 'offset must be a whole number'],
  ])('refuses %s with 400, reading nothing', async (query, message) => {
    const { calls, logs } = client('one\n');
    const error = await refusal(logs, ask('qwen', query));
    expect(error).toMatchObject({ status: 400, code: 'invalid_request_error', message });
    expect(calls).toEqual([]);
  });

  it('refuses an unknown node with 404 naming the closest node and every node', async () => {
    const error = await refusal(client('').logs, ask('qwne'));
    expect(error.status).toBe(404);
    expect(error.message).toBe(
      'no node "qwne" in /etc/svc/fleet.yaml (did you mean "qwen"?); its nodes: qwen, gpu-a, cloud',
    );
  });

  it('needs operator rights: the gateway token alone gets 403 and reads nothing', async () => {
    const { calls, logs } = client('one\n');
    const error = await refusal(logs, ask('qwen', '', 'use'));
    expect(error).toMatchObject({ status: 403, code: 'insufficient_permissions' });
    expect(error.message).toContain('gateway.operatorTokenEnv');
    expect(calls).toEqual([]);
  });

  it('masks every secret the fleet names and the gateway token, byte for byte', async () => {
    const text = `key ${ENGINE_KEY}\nnode ${NODE_TOKEN}\nop ${OPERATOR_TOKEN}\ngw ${GATEWAY_TOKEN}\n`;
    const answer = await reply(client(text).logs, ask('qwen', 'offset=0'));
    for (const secret of [ENGINE_KEY, NODE_TOKEN, OPERATOR_TOKEN, GATEWAY_TOKEN]) {
      expect(answer.content).not.toContain(secret);
    }
    expect(answer.content).toBe(
      `key ${'*'.repeat(ENGINE_KEY.length)}\nnode ${'*'.repeat(NODE_TOKEN.length)}\nop ${'*'.repeat(OPERATOR_TOKEN.length)}\ngw ${'*'.repeat(GATEWAY_TOKEN.length)}\n`,
    );
    expect(answer.nextOffset).toBe(text.length);
  });

  it('holds back a key the limit cuts, and masks its rest after an offset inside it', async () => {
    const text = `key=${ENGINE_KEY}\n`;
    const { calls, logs } = client(text);
    expect(await reply(logs, ask('qwen', 'offset=0&limit=10'))).toMatchObject({
      content: 'key=',
      nextOffset: 4,
    });
    // An offset inside the key: the text before it is read to tell, and the rest is masked.
    const inside = await reply(logs, ask('qwen', 'offset=10'));
    expect(inside.content).toBe(`${'*'.repeat(text.length - 11)}\n`);
    expect(calls.slice(1)).toEqual(['qwen {"offset":10}', 'qwen {"offset":0,"limit":10}']);
  });

  it("reads a daemon node's log through its driver, masked the same way", async () => {
    const { calls, logs } = client(`token ${NODE_TOKEN}\n`);
    expect((await reply(logs, ask('gpu-a'))).content).toBe(
      `token ${'*'.repeat(NODE_TOKEN.length)}\n`,
    );
    expect(calls).toEqual(['gpu-a {}']);
  });

  it('refuses a kind with no engine log with 400, and a failed read with 502 naming the node', async () => {
    const { logs } = client('', (node) =>
      node.kind === 'remote'
        ? { ok: false, outcome: 'unsupported', detail: 'a remote node has no engine log to read' }
        : { ok: false, outcome: 'unreachable', detail: 'connect ECONNREFUSED 127.0.0.1:4242' },
    );
    expect(await refusal(logs, ask('cloud'))).toMatchObject({
      status: 400,
      message: 'node "cloud": a remote node has no engine log to read',
    });
    expect(await refusal(logs, ask('gpu-a'))).toMatchObject({
      status: 502,
      code: 'upstream_error',
      message: 'node "gpu-a" did not give its log: connect ECONNREFUSED 127.0.0.1:4242',
    });
  });
});
