/**
 * The scheduler benchmark's processes (bench/scheduler/scheduler.ts): real `svc daemon` nodes running the
 * slot-limited fake engine (test/fixtures/fake-engine.mjs `slots:N,hold:MS`) or the real
 * llama-server, fleet files naming them, and a built gateway (this build's or another's) over
 * them. A gateway that refuses its fleet file (today's build refuses the scheduler's keys,
 * docs/design.md D20) is reported as refused, with its message, instead of ending the run. Every
 * process is tracked and stopped by PID (bench/fleet/fleet-processes.ts); all on 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { stopChild, track } from '../fleet/fleet-processes.ts';
import { svcEnv, waitForLine } from '../support.ts';

export interface BenchNode {
  readonly name: string;
  readonly url: string;
  readonly child: ChildProcess;
}

/** A daemon node; `fake` = FAKE_ENGINE modes (the node runs the fake engine as llama-server). */
export async function startNode(
  repoRoot: string,
  work: string,
  name: string,
  fake?: string,
): Promise<BenchNode> {
  const fakeBin = join(repoRoot, 'test', 'fixtures', 'bin');
  const base = svcEnv(repoRoot);
  const env = {
    ...base,
    ...(fake === undefined ? {} : { PATH: `${fakeBin}:${base['PATH'] ?? ''}`, FAKE_ENGINE: fake }),
    SVC_CONFIG_DIR: join(work, `config-${name}`),
    SVC_API_TOKEN: '',
    // A 1 s sampler: the daemon's `slots` and `busy` (docs/design.md D25) follow the engine within
    // a second.
    SVC_SAMPLE_INTERVAL_SECONDS: '1',
  };
  const child = track(
    spawn(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'daemon', '--api-addr', '127.0.0.1:0'],
      { env, stdio: ['ignore', 'pipe', 'pipe'] },
    ),
  );
  const [, url = ''] = await waitForLine(child, /listening on (http:\/\/\S+)/);
  return { name, url, child };
}

/** A fleet file: `top` lines, then each node with its Svcfile and `extra` lines under it. */
export function fleetText(
  top: readonly string[],
  nodes: readonly BenchNode[],
  extra: readonly string[] = [],
): string {
  const lines = [...top, 'nodes:'];
  for (const node of nodes) {
    lines.push(
      `  - name: ${node.name}`,
      '    host: 127.0.0.1',
      `    port: ${new URL(node.url).port}`,
      `    file: ${node.name}.svc`,
      '    engine: {host: 127.0.0.1}',
      ...extra.map((line) => `    ${line}`),
    );
  }
  return `${lines.join('\n')}\n`;
}

export type GatewayRun =
  | { readonly up: true; readonly url: string; readonly child: ChildProcess }
  | { readonly up: false; readonly refusal: string };

/** The gateway of `cli` over `fleet.yaml` text written to `<work>/<tag>.yaml`, or its refusal. */
export async function startGateway(
  repoRoot: string,
  cli: string,
  work: string,
  tag: string,
  text: string,
  /** Over the gateway's environment (a gateway token: bench/callers/callers.ts). */
  env: NodeJS.ProcessEnv = {},
): Promise<GatewayRun> {
  const file = join(work, `${tag}.yaml`);
  await writeFile(file, text);
  const child = track(
    spawn(process.execPath, [cli, 'gateway', '--listen', '127.0.0.1:0', '-f', file], {
      cwd: work,
      env: {
        ...svcEnv(repoRoot),
        SVC_CONFIG_DIR: join(work, `gateway-${tag}`),
        SVC_API_TOKEN: '',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  try {
    const [, url = ''] = await waitForLine(child, /listening on (http:\/\/\S+)/);
    return { up: true, url, child };
  } catch (error) {
    // The gateway exited before listening: its output says why (the first problem is enough).
    const output = (error as Error).message;
    const problems = output.split('\n').filter((line) => line.includes('unknown key'));
    const first = problems[0];
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return {
      up: false,
      refusal:
        first === undefined
          ? output.slice(-200).trim()
          : `${first.slice(first.indexOf('unknown key'))}${more}`,
    };
  }
}

/**
 * Starts the gateway with the file that has the scheduler's keys; when it is refused, starts it
 * again with `fallback` (the same fleet without them: today's routing) and says so.
 */
export async function startGatewayOrFallback(
  repoRoot: string,
  cli: string,
  work: string,
  tag: string,
  text: string,
  fallback: string,
): Promise<{ url: string; child: ChildProcess; refusal?: string }> {
  const first = await startGateway(repoRoot, cli, work, tag, text);
  if (first.up) {
    return first;
  }
  const second = await startGateway(repoRoot, cli, work, `${tag}-fallback`, fallback);
  if (!second.up) {
    throw new Error(
      `gateway refused even the fleet file without the scheduler's keys: ${second.refusal}`,
    );
  }
  return { url: second.url, child: second.child, refusal: first.refusal };
}

export { stopChild };

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts a node through the gateway (as `svc fleet start` does); a running one (409) is fine. */
export async function startThroughGateway(gateway: string, node: string): Promise<void> {
  const reply = await fetch(`${gateway}/v1/fleet/nodes/${node}/start`, { method: 'POST' });
  const text = await reply.text();
  if (reply.status !== 200 && reply.status !== 409) {
    throw new Error(`start ${node}: HTTP ${reply.status} ${text}`);
  }
}

export interface NodeStatus {
  readonly state: string;
  readonly ready?: string;
  readonly engine?: { readonly port: number };
}

export async function nodeStatus(node: BenchNode): Promise<NodeStatus> {
  return (await (await fetch(`${node.url}/v1/status`)).json()) as NodeStatus;
}

/** Waits until the node's engine runs and answers its health check; resolves with its port. */
export async function untilReady(node: BenchNode): Promise<number> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const status = await nodeStatus(node);
    if (status.state === 'running' && status.ready === 'ready' && status.engine !== undefined) {
      return status.engine.port;
    }
    await sleep(50);
  }
  throw new Error(`node ${node.name} never became ready`);
}

/** Stops a node's engine through its daemon and waits until it no longer runs. */
export async function stopEngine(node: BenchNode): Promise<void> {
  await (await fetch(`${node.url}/v1/stop`, { method: 'POST' })).text();
  while ((await nodeStatus(node)).state === 'running') {
    await sleep(20);
  }
}

/** Starts a node's engine through its daemon with the config it last ran (docs/design.md D8). */
export async function startEngine(node: BenchNode): Promise<void> {
  const reply = await fetch(`${node.url}/v1/start`, { method: 'POST' });
  const text = await reply.text();
  if (reply.status !== 200) {
    throw new Error(`start ${node.name}: HTTP ${reply.status} ${text}`);
  }
}

export { sleep };

export interface Build {
  readonly label: string;
  readonly cli: string;
}

/** What every scenario run records: which build, and the fleet file's refusal if it had one. */
export interface Run {
  readonly build: string;
  readonly refusal?: string;
}

/** The gateway over `nodes` with `top` (the scheduler's keys), or without them when refused. */
export async function gatewayFor(
  repoRoot: string,
  build: Build,
  work: string,
  tag: string,
  nodes: readonly BenchNode[],
  top: readonly string[],
  extra: readonly string[] = [],
): Promise<{ url: string; child: ChildProcess; refusal?: string }> {
  return startGatewayOrFallback(
    repoRoot,
    build.cli,
    work,
    tag,
    fleetText(top, nodes, extra),
    fleetText([], nodes),
  );
}

/** Starts every node through the gateway, waits until each serves, and for the gateway to see it. */
export async function allServing(
  gateway: string,
  nodes: readonly BenchNode[],
): Promise<Map<number, string>> {
  const byPort = new Map<number, string>();
  for (const node of nodes) {
    await startThroughGateway(gateway, node.name);
  }
  for (const node of nodes) {
    byPort.set(await untilReady(node), node.name);
  }
  // The gateway keeps node statuses for 2 s (node-snapshots.ts): let it see them running.
  await sleep(2_500);
  return byPort;
}
