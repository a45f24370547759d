/**
 * A fleet for gateway end-to-end tests: one real `svc daemon` per node (each in its own config
 * dir, running the real llama-server or, where a fault must be shown on cue, the fake engine),
 * a fleet file naming them, and the built `svc gateway` in front, all on 127.0.0.1 port 0.
 * Every process is started through startProcess(), so each is killed by PID when the test ends.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { startProcess, type TestProcess } from '../processes/processes.ts';
import { FAKE_BIN_DIR, freePort, startTestDaemon, type TestDaemon } from './daemon.ts';
import { SVC, tempDir } from './svc.ts';

export const GATEWAY_TOKEN = 'gateway-token-5e6f';
export const NODE_TOKEN = 'node-token-7a8b';
export const ENGINE_KEY = 'engine-key-9c0d';

export interface FleetNodeSpec {
  readonly name: string;
  /** The node's Svcfile; `{port}` becomes a free port picked once the gateway is up. */
  readonly svcfile: string;
  /** Extra fleet-file lines for this node (indented under it). */
  readonly extra?: readonly string[];
  /** FAKE_ENGINE modes: the node runs test/fixtures/fake-engine.mjs instead of llama-server. */
  readonly fake?: string;
  /** Other files beside the Svcfile (a preset), by name. */
  readonly files?: Readonly<Record<string, string>>;
}

export interface FleetOptions {
  /** Top-level fleet-file lines (wake: off, a gateway section). */
  readonly top?: readonly string[];
  readonly gatewayArgs?: readonly string[];
  /** Variables added to the gateway's environment (an operator token). */
  readonly gatewayEnv?: Record<string, string>;
  /**
   * Write the Svcfiles before the gateway starts: for a fleet whose gateway reads them as it
   * starts (keep-warm, idle stop), which would otherwise find none and keep that answer a while.
   */
  readonly svcfilesFirst?: boolean;
  /** `default`: the daemons sample at their own interval (15 s), not the tests' short one. */
  readonly sampling?: 'short' | 'default';
}

export interface GatewayFleet {
  readonly dir: string;
  readonly daemons: Record<string, TestDaemon>;
  readonly gateway: TestProcess;
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly url: string;
  /** The gateway's access-log lines so far (`api request …`). */
  requestLines(): string[];
}

/**
 * Nodes `names`, each serving the real llama-server on `model` (a tiny model's path) as
 * `tiny-<name>`, with `extra` fleet-file lines for each.
 */
export function tinyNodes(
  model: string,
  names: readonly string[],
  extra: readonly string[] = [],
): FleetNodeSpec[] {
  return names.map((name) => ({
    name,
    svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-${name}\nBASEURL 127.0.0.1:{port}\n`,
    extra,
  }));
}

export async function startGatewayFleet(
  nodes: readonly FleetNodeSpec[],
  options: FleetOptions = {},
): Promise<GatewayFleet> {
  const dir = await tempDir();
  const daemons: Record<string, TestDaemon> = {};
  const lines = [...(options.top ?? []), 'nodes:'];
  for (const node of nodes) {
    for (const [name, text] of Object.entries(node.files ?? {})) {
      await writeFile(join(dir, name), text);
    }
    const daemon = await startTestDaemon({
      configDir: join(dir, `config-${node.name}`),
      token: NODE_TOKEN,
      ...(node.fake === undefined ? {} : { path: [FAKE_BIN_DIR] }),
      env: {
        ...(options.sampling === 'default' ? {} : { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' }),
        ...(node.fake === undefined ? {} : { FAKE_ENGINE: node.fake }),
      },
    });
    daemons[node.name] = daemon;
    lines.push(
      `  - name: ${node.name}`,
      '    host: 127.0.0.1',
      `    port: ${new URL(daemon.url).port}`,
      '    tokenEnv: NODE_TOKEN',
      '    engineTokenEnv: ENGINE_KEY',
      `    file: ${node.name}.svc`,
      '    engine: {host: 127.0.0.1}',
      ...(node.extra ?? []).map((line) => `    ${line}`),
    );
  }
  await writeFile(join(dir, 'fleet.yaml'), `${lines.join('\n')}\n`);
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
  const writeSvcfiles = async (): Promise<void> => {
    for (const node of nodes) {
      const svcfile = node.svcfile.includes('{port}')
        ? node.svcfile.replaceAll('{port}', String(await freePort()))
        : node.svcfile;
      await writeFile(join(dir, `${node.name}.svc`), svcfile);
    }
  };
  if (options.svcfilesFirst === true) {
    await writeSvcfiles();
  }
  const { gateway, url } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config-gateway'),
    args: options.gatewayArgs ?? [],
    ...(options.gatewayEnv === undefined ? {} : { env: options.gatewayEnv }),
  });
  // The gateway reads a node's Svcfile when it first needs it: writing it now, with an engine
  // port picked after every daemon and the gateway have bound theirs, keeps the window in which
  // another process could take that port as short as it can be.
  if (options.svcfilesFirst !== true) {
    await writeSvcfiles();
  }
  return {
    dir,
    daemons,
    gateway,
    url,
    requestLines: () =>
      gateway
        .stderr()
        .split('\n')
        .filter((line) => line.includes('api request')),
  };
}

export interface GatewayStart {
  /** Where the gateway runs: its fleet.yaml and .env are read from here. */
  readonly cwd: string;
  readonly configDir: string;
  /** Flags after `--listen 127.0.0.1:0`. */
  readonly args?: readonly string[];
  /** Variables added to the test's environment. */
  readonly env?: Record<string, string>;
  readonly logLevel?: 'debug' | 'info';
}

/** The built `svc gateway` on 127.0.0.1 port 0 with the test gateway token, once it listens. */
export async function startTestGateway(
  start: GatewayStart,
): Promise<{ gateway: TestProcess; url: string }> {
  const gateway = startProcess(SVC, ['gateway', '--listen', '127.0.0.1:0', ...(start.args ?? [])], {
    cwd: start.cwd,
    env: {
      ...process.env,
      ...start.env,
      SVC_API_TOKEN: GATEWAY_TOKEN,
      SVC_CONFIG_DIR: start.configDir,
      SVC_LOG_LEVEL: start.logLevel ?? 'debug',
    },
  });
  const [, url = ''] = await gateway.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);
  return { gateway, url };
}

/** Headers for a gateway call with the token (or another credential, or none). */
export function authorized(token: string | null = GATEWAY_TOKEN): Record<string, string> {
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/**
 * A file of a local node (`engine.pid`, `engine.log`) of a gateway that runs one: under the
 * directory its start-up line names (`logs under <fleet state dir>/nodes`, docs/design.md D27).
 */
export function localNodeFile(gateway: TestProcess, node: string, file: string): string {
  const [, nodes] = /logs under (\S+)$/m.exec(gateway.stdout()) ?? [];
  if (nodes === undefined) {
    throw new Error(`the gateway (pid ${gateway.pid}) named no local nodes' directory`);
  }
  return join(nodes, node, file);
}
