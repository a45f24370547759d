/**
 * The paths the local-node benchmark compares (bench/local.ts), each ending at a real
 * llama-server on 127.0.0.1 started from a Svcfile of the same tiny model and preset: the engine
 * directly; `svc gateway` over a fleet of one `kind: local` node (the gateway supervises the
 * engine itself, docs/design.md D27); `svc gateway` over a fleet of one daemon node (`svc daemon`
 * runs the engine); and, with `pairs`, two local nodes against two daemon nodes. Every node has
 * `keepWarm: on`, so each gateway starts its engines itself, through the same wake path, before
 * any request. Each target keeps the process ids whose CPU time and memory are read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { waitHealthy } from './gateway-paths.ts';
import { stopChildTrees } from './process-trees.ts';
import { freePort, startSvcDaemon, svcEnv, waitForLine } from './support.ts';

export interface LocalTarget {
  readonly name: string;
  readonly kind: 'direct' | 'local' | 'daemon';
  readonly url: string;
  /** The gateway process (0 for direct: nothing stands between). */
  readonly pid: number;
  /** The daemons that run this path's engines (none for direct and local nodes). */
  readonly daemonPids: readonly number[];
  /** The served names its requests alternate between. */
  readonly models: readonly string[];
}

export interface LocalPaths {
  readonly targets: readonly LocalTarget[];
  readonly work: string;
  close(): Promise<void>;
}

/** The same engine flags as the gateway section's (bench/gateway-paths.ts), as a preset. */
const PRESET = [
  '[engine]',
  // llama.cpp's compute threads spin; on a 2-core machine two of them starve the proxies.
  'threads-http = 32',
  'log-verbosity = 1',
  'threads = 1',
  '',
].join('\n');

/** Polls `check` every 100 ms until it holds; engines under load may take a while to start. */
export async function until(
  check: () => Promise<boolean>,
  what: string,
  limitMs = 120_000,
): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} within ${limitMs / 1000} s`);
}

/** Whether every node of the gateway's fleet reports `running` and ready (its engine answers). */
export async function fleetReady(url: string): Promise<boolean> {
  const reply = await fetch(`${url}/v1/fleet`);
  const nodes = ((await reply.json()) as { nodes?: { state?: string; ready?: string }[] }).nodes;
  return (
    nodes !== undefined &&
    nodes.length > 0 &&
    nodes.every((node) => node.state === 'running' && node.ready === 'ready')
  );
}

export async function startLocalPaths(
  repoRoot: string,
  model: string,
  pairs: boolean,
): Promise<LocalPaths> {
  const work = await mkdtemp(join(tmpdir(), 'svc-localbench-'));
  const children: ChildProcess[] = [];
  const close = async (): Promise<void> => {
    await stopChildTrees(children);
    await rm(work, { recursive: true, force: true });
  };
  const env = svcEnv(repoRoot);
  const cli = join(repoRoot, 'dist', 'cli.js');

  /** A Svcfile for one engine on a port of its own; resolves with its path and URL. */
  const ports = new Set<number>();
  const svcfile = async (name: string, alias: string): Promise<{ file: string; url: string }> => {
    let port = await freePort();
    while (ports.has(port)) {
      port = await freePort();
    }
    ports.add(port);
    const file = join(work, `${name}.svc`);
    await writeFile(
      file,
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nPRESET ${join(work, 'engine.ini')}\nBASEURL 127.0.0.1:${port}\n`,
    );
    return { file, url: `http://127.0.0.1:${port}` };
  };
  /** Starts a gateway over `nodes`; resolves with its pid and a promise of its URL. */
  const gateway = async (
    name: string,
    nodes: readonly string[],
  ): Promise<{ pid: number; listening: Promise<RegExpMatchArray> }> => {
    const fleet = join(work, `${name}.yaml`);
    await writeFile(fleet, ['nodes:', ...nodes.map((node) => `  - ${node}`), ''].join('\n'));
    const child = spawn(
      process.execPath,
      [cli, 'gateway', '--listen', '127.0.0.1:0', '-f', fleet],
      {
        env: { ...env, SVC_CONFIG_DIR: join(work, name), SVC_API_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    // Watched from the start, so an early exit is seen; awaited once every gateway is started.
    const listening = waitForLine(child, /listening on (http:\/\/\S+)/);
    listening.catch(() => undefined);
    return { pid: child.pid ?? 0, listening };
  };
  const localNode = (name: string, file: string): string =>
    `{name: ${name}, kind: local, file: ${file}, keepWarm: on}`;
  const daemonNode = async (name: string, file: string): Promise<[string, number]> => {
    const { daemon, url } = await startSvcDaemon(repoRoot, env, join(work, name), children);
    return [
      `{name: ${name}, host: 127.0.0.1, port: ${new URL(url).port}, engine: {host: 127.0.0.1}, file: ${file}, keepWarm: on}`,
      daemon.pid ?? 0,
    ];
  };

  try {
    await writeFile(join(work, 'engine.ini'), PRESET);
    const shapes: { name: string; kind: 'local' | 'daemon'; aliases: string[] }[] = [
      { name: 'gateway, 1 local node', kind: 'local', aliases: ['tiny'] },
      { name: 'gateway, 1 daemon node', kind: 'daemon', aliases: ['tiny'] },
      ...(pairs
        ? [
            { name: 'gateway, 2 local nodes', kind: 'local' as const, aliases: ['tiny', 'tiny-b'] },
            {
              name: 'gateway, 2 daemon nodes',
              kind: 'daemon' as const,
              aliases: ['tiny', 'tiny-b'],
            },
          ]
        : []),
    ];
    const engines: string[] = [];
    const pending: {
      target: Omit<LocalTarget, 'url' | 'pid'>;
      started: { pid: number; listening: Promise<RegExpMatchArray> };
    }[] = [];
    for (const [index, shape] of shapes.entries()) {
      const nodes: string[] = [];
      const daemonPids: number[] = [];
      for (const [at, alias] of shape.aliases.entries()) {
        const node = `${shape.kind}${index}${at}`;
        const { file, url } = await svcfile(node, alias);
        engines.push(url);
        if (shape.kind === 'local') {
          nodes.push(localNode(node, file));
        } else {
          const [line, pid] = await daemonNode(node, file);
          nodes.push(line);
          daemonPids.push(pid);
        }
      }
      pending.push({
        target: { name: shape.name, kind: shape.kind, daemonPids, models: shape.aliases },
        started: await gateway(`gateway${index}`, nodes),
      });
    }
    const gateways: LocalTarget[] = [];
    for (const { target, started } of pending) {
      const [, url = ''] = await started.listening;
      await until(() => fleetReady(url), `${target.name}: its nodes were not ready`);
      gateways.push({ ...target, url, pid: started.pid });
    }
    for (const url of engines) {
      await waitHealthy(`${url}/health`);
    }
    // The first two engines: the single local node's and the single daemon node's.
    const direct = (name: string, url: string): LocalTarget => ({
      name,
      kind: 'direct',
      url,
      pid: 0,
      daemonPids: [],
      models: ['tiny'],
    });
    return {
      work,
      close,
      targets: [
        direct("direct, the local node's engine", engines[0] ?? ''),
        direct("direct, the daemon node's engine", engines[1] ?? ''),
        ...gateways,
      ],
    };
  } catch (error) {
    await close();
    throw error;
  }
}
