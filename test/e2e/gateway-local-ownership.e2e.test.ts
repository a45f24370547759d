/**
 * Several gateways with local nodes on one machine (docs/design.md D27), end to end: two `svc up` over one
 * config dir. The same fleet started a second time is refused, naming the node and the gateway
 * that runs it, before it listens or touches an engine: the first gateway's engine (watched by
 * PID) runs on, untouched, and still serves. Two different fleets whose nodes are both called
 * `chat` both serve, each with its own engine and its own engine log, and one ending leaves the
 * other's engine running. A keep-warm start that fails (no llama-server on PATH) is an error line
 * as the gateway starts, with no request needed to see it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { enginesUnder } from '../support/processes/engine-watch.ts';
import { alive, killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import { startProcess, type TestProcess } from '../support/processes/processes.ts';
import { authorized, GATEWAY_TOKEN } from '../support/svc/gateway-fleet.ts';
import { chat } from '../support/svc/scale-to-zero.ts';
import { SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

let dir: string;
let svcfile: string;

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  svcfile = join(dir, 'chat.svc');
  await writeFile(svcfile, `PROVIDER llamacpp\nMODEL ${model}\nALIAS chat\nCONTEXT 256\n`);
});

/** A fleet directory whose fleet.yaml has one local node `chat`, its gateway on a free port. */
async function fleetDir(name: string, node: string): Promise<{ path: string; url: string }> {
  const path = join(dir, name);
  await mkdir(path);
  const url = `http://127.0.0.1:${await freePort()}`;
  await writeFile(
    join(path, 'fleet.yaml'),
    ['gateway:', `  url: ${url}`, 'nodes:', `  - ${node}`, ''].join('\n'),
  );
  return { path, url };
}

/** `svc up` (or another svc command) in `cwd`, over the one config dir every gateway here shares. */
function svcIn(cwd: string, args: readonly string[] = ['up']): TestProcess {
  return startProcess(SVC, args, {
    cwd,
    env: {
      ...process.env,
      PATH: testPath(),
      SVC_API_TOKEN: GATEWAY_TOKEN,
      SVC_CONFIG_DIR: join(dir, 'config'),
      SVC_LOG_LEVEL: 'info',
    },
  });
}

/** The node `chat`'s state as a gateway's /v1/fleet reports it. */
async function chatState(url: string): Promise<string | undefined> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  const body = (await reply.json()) as { nodes: { name: string; state: string }[] };
  return body.nodes.find((node) => node.name === 'chat')?.state;
}

/** The one live engine under a gateway; fails the test when there is not exactly one. */
function engineOf(gateway: TestProcess): number {
  const engines = enginesUnder(gateway.pid).map((engine) => engine.pid);
  expect(engines).toHaveLength(1);
  killSurvivorsAfterTest(engines);
  return engines[0] as number;
}

/** A slice of `chat`'s engine log through the gateway (GET /v1/fleet/nodes/chat/logs). */
async function chatLog(url: string): Promise<{ path: string; content: string }> {
  const reply = await fetch(`${url}/v1/fleet/nodes/chat/logs`, { headers: authorized() });
  expect(reply.status).toBe(200);
  return (await reply.json()) as { path: string; content: string };
}

async function stop(gateway: TestProcess): Promise<void> {
  process.kill(gateway.pid, 'SIGINT');
  expect(await gateway.exited()).toBe(0);
}

describe('several gateways with local nodes on one machine', () => {
  it('the same fleet started twice: the second is refused, the first engine untouched', async () => {
    const fleet = await fleetDir(
      'same',
      '{name: chat, kind: local, file: ../chat.svc, keepWarm: on}',
    );
    const first = svcIn(fleet.path);
    await first.waitFor(/listening on http/);
    await eventually(
      () => chatState(fleet.url),
      (state) => state === 'running',
      'chat running under the first gateway',
    );
    const engine = engineOf(first);

    // svc up again in the same directory: the same address and the same fleet.
    const again = svcIn(fleet.path);
    expect(await again.exited()).toBe(1);
    // Another address, the same fleet file: refused as well, by the claim, not by the address.
    const elsewhere = svcIn(fleet.path, ['gateway', '--listen', '127.0.0.1:0']);
    expect(await elsewhere.exited()).toBe(1);
    for (const refused of [again, elsewhere]) {
      expect(refused.stderr()).toContain(
        `the local nodes chat of ${join(fleet.path, 'fleet.yaml')} are already run by another gateway (pid ${first.pid}, listening on ${fleet.url}`,
      );
      expect(refused.output()).not.toMatch(/stopped an engine|starting engine|keeping node warm/);
    }

    // The first gateway's engine is the same process, running and serving.
    expect(alive([engine])).toEqual([engine]);
    expect(await chatState(fleet.url)).toBe('running');
    expect(await chat(fleet.url, 'chat')).toBe('200 chat.completion');
    expect(engineOf(first)).toBe(engine);
    expect(first.stderr()).not.toMatch(/ERROR/);
    await stop(first);
    expect(alive([engine])).toEqual([]);
  });

  it('two fleets whose nodes are both called chat both serve, each its own engine and log', async () => {
    const one = await fleetDir('one', '{name: chat, kind: local, file: ../chat.svc}');
    const two = await fleetDir('two', '{name: chat, kind: local, file: ../chat.svc}');
    const first = svcIn(one.path);
    await first.waitFor(/listening on http/);
    expect(await chat(one.url, 'chat')).toBe('200 chat.completion');
    const firstEngine = engineOf(first);

    const second = svcIn(two.path);
    await second.waitFor(/listening on http/);
    expect(await chat(two.url, 'chat')).toBe('200 chat.completion');
    const secondEngine = engineOf(second);
    expect(secondEngine).not.toBe(firstEngine);

    // Both run side by side; neither gateway touched the other's engine.
    expect(alive([firstEngine, secondEngine])).toEqual([firstEngine, secondEngine]);
    expect(await chat(one.url, 'chat')).toBe('200 chat.completion');
    expect(engineOf(first)).toBe(firstEngine);
    expect([await chatState(one.url), await chatState(two.url)]).toEqual(['running', 'running']);
    for (const gateway of [first, second]) {
      expect(gateway.stderr()).not.toMatch(/stopped an engine|ERROR/);
    }
    // Each fleet's engine writes its own log, under its own fleet's directory.
    const [oneLog, twoLog] = [await chatLog(one.url), await chatLog(two.url)];
    expect(oneLog.path).not.toBe(twoLog.path);
    expect(oneLog.path).toMatch(
      new RegExp(`^${join(dir, 'config', 'fleets')}/one-[0-9a-f]{8}/nodes/chat/engine\\.log$`),
    );
    expect(twoLog.path).toMatch(
      new RegExp(`^${join(dir, 'config', 'fleets')}/two-[0-9a-f]{8}/nodes/chat/engine\\.log$`),
    );
    expect(oneLog.content).toContain('model loaded');
    expect(twoLog.content).toContain('model loaded');

    // One ending leaves the other's engine running and serving.
    await stop(second);
    expect(alive([secondEngine])).toEqual([]);
    expect(alive([firstEngine])).toEqual([firstEngine]);
    expect(await chat(one.url, 'chat')).toBe('200 chat.completion');
    await stop(first);
    expect(alive([firstEngine])).toEqual([]);
  });

  it('a keep-warm start that fails is an error line as the gateway starts', async () => {
    // An engine this host does not have (vLLM is not in the test kit, as serve-run's tests rely on).
    await writeFile(join(dir, 'vllm.svc'), 'PROVIDER vllm\nMODEL org/tiny\nALIAS chat\n');
    const fleet = await fleetDir(
      'broken',
      '{name: chat, kind: local, file: ../vllm.svc, keepWarm: on}',
    );
    const up = svcIn(fleet.path);
    // No request is sent: the failure is said as the gateway starts the node.
    await up.waitFor(
      /ERROR node start failed node=chat model=chat cause=keep-warm reason="[^"]*vllm not found on PATH/,
    );
    await stop(up);
  });
});
