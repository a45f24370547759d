/**
 * The fleet the real-agent tests launch `svc code` against: one daemon whose Svcfile (`a.svc`)
 * names the long-context tiny model (agents' first prompts run to tens of thousands of tokens), a
 * gateway in front of it, and a fleet file whose `gateway` section names that gateway; plus the
 * run of `svc code` itself, in its own process group so the agent goes with it however the test
 * ends.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { writeTinyModel } from '../models/tiny-model.ts';
import { REPO_ROOT, testPath } from '../prerequisites/engines.ts';
import { startProcess, type TestProcess } from '../processes/processes.ts';
import { freePort, startTestDaemon, type TestDaemon } from './daemon.ts';
import { GATEWAY_TOKEN, NODE_TOKEN, startTestGateway } from './gateway-fleet.ts';
import { SVC } from './svc.ts';

export interface AgentFleet {
  readonly daemon: TestDaemon;
  readonly gateway: TestProcess;
  readonly gatewayUrl: string;
}

/**
 * Starts the fleet in `dir`; `presetLines` become `tiny.ini`, named by a PRESET line, and
 * `svcfileLines` are added to the Svcfile.
 */
export async function startAgentFleet(
  dir: string,
  presetLines?: string,
  svcfileLines: readonly string[] = [],
): Promise<AgentFleet> {
  const model = await writeTinyModel(join(dir, 'tiny.gguf'), { contextLength: 32768 });
  if (presetLines !== undefined) {
    await writeFile(join(dir, 'tiny.ini'), presetLines);
  }
  await writeFile(
    join(dir, 'a.svc'),
    [
      'PROVIDER llamacpp',
      `MODEL ${model}`,
      'ALIAS tiny',
      ...(presetLines === undefined ? [] : ['PRESET tiny.ini']),
      'CONTEXT 32768',
      ...svcfileLines,
      `BASEURL 127.0.0.1:${await freePort()}`,
      '',
    ].join('\n'),
  );
  const daemon = await startTestDaemon({ configDir: join(dir, 'config-a'), token: NODE_TOKEN });
  const nodes = [
    'nodes:',
    '  - name: a',
    '    host: 127.0.0.1',
    `    port: ${new URL(daemon.url).port}`,
    '    tokenEnv: NODE_TOKEN',
    '    file: a.svc',
    '    engine: {host: 127.0.0.1}',
  ];
  const fleetPath = join(dir, 'fleet.yaml');
  await writeFile(fleetPath, `${nodes.join('\n')}\n`);
  const { gateway, url: gatewayUrl } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config-gateway'),
    env: { NODE_TOKEN },
  });
  // The section names the gateway that is now listening (the gateway itself never reads it).
  await writeFile(
    fleetPath,
    `gateway:\n  url: ${gatewayUrl}\n  tokenEnv: GW_TOKEN\n${nodes.join('\n')}\n`,
  );
  return { daemon, gateway, gatewayUrl };
}

export interface AgentRun {
  readonly status: number | NodeJS.Signals | 'timeout';
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * `svc code <args>` in `dir` with the gateway token in GW_TOKEN, `env` on top; waits at most
 * `limitMs` (generous, never what a test measures), then kills the whole group.
 */
export async function runSvcCode(
  dir: string,
  args: readonly string[],
  env: Record<string, string>,
  limitMs: number,
): Promise<AgentRun> {
  // Its own process group, so that however the test ends, the agent goes with svc (a SIGKILL'd
  // svc could not forward anything).
  const svc = startProcess(SVC, ['code', ...args], {
    cwd: dir,
    detached: true,
    env: {
      ...process.env,
      SVC_ALIAS: '',
      SVC_LOG_LEVEL: '',
      SVC_CONFIG_DIR: join(dir, 'config-code'),
      GW_TOKEN: GATEWAY_TOKEN,
      OPENAI_API_KEY: '',
      ...env,
    },
  });
  let status: AgentRun['status'];
  try {
    status = await Promise.race([
      svc.exited(),
      new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), limitMs)),
    ]);
  } finally {
    try {
      process.kill(-svc.pid, 'SIGKILL');
    } catch {
      // the whole group has already exited
    }
  }
  return { status, stdout: svc.stdout(), stderr: svc.stderr() };
}

/**
 * The real opencode's environment for a test: its programs on PATH, and its config, data, cache
 * and state under `home` (private to the test), with no models fetch and no update check.
 */
export function opencodeEnv(home: string): Record<string, string> {
  return {
    PATH: testPath(join(REPO_ROOT, 'node_modules', '.bin')),
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    OPENCODE_DISABLE_MODELS_FETCH: '1',
    OPENCODE_DISABLE_AUTOUPDATE: '1',
  };
}
