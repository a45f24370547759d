/**
 * Helpers for the scale-to-zero end-to-end tests (docs/design.md D26): a chat request through the
 * gateway, a node's state as its own daemon reports it, and a daemon that a wake command starts
 * (test/fixtures/start-detached.mjs), killed by PID with everything under it when the test ends.
 * The engines on the process table are watched with engine-watch.ts.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { onTestFinished } from 'vitest';

import { chat as chatRequest } from '../http/chat.ts';
import { freePort } from '../http/net.ts';
import { writeTinyModel } from '../models/tiny-model.ts';
import { REPO_ROOT, testPath } from '../prerequisites/engines.ts';
import { alive, processTree } from '../processes/process-tree.ts';
import type { TestProcess } from '../processes/processes.ts';
import { tempDir } from '../processes/temp-dir.ts';
import { authorized, ENGINE_KEY, NODE_TOKEN, startTestGateway } from './gateway-fleet.ts';
import { SVC } from './svc.ts';

/** A short chat request for `model`: `<status> <object>` (or the body when it is no completion). */
export async function chat(url: string, model: string): Promise<string> {
  const reply = await chatRequest(url, { model }, { headers: authorized() });
  const body = (await reply.json()) as { object?: string };
  return `${reply.status} ${body.object ?? JSON.stringify(body)}`;
}

/** A streamed chat request for `model` generating `tokens` tokens (EOS ignored), once it answers. */
export async function stream(url: string, model: string, tokens: number): Promise<Response> {
  return chatRequest(
    url,
    { model, max_tokens: tokens, ignore_eos: true, stream: true },
    { headers: authorized() },
  );
}

/** The node's state as its daemon reports it (`GET /v1/status`), or `down` when it does not answer. */
export async function nodeState(daemonUrl: string): Promise<string> {
  try {
    const reply = await fetch(`${daemonUrl}/v1/status`, { headers: authorized(NODE_TOKEN) });
    const body = (await reply.json()) as { state?: string };
    return body.state ?? `status ${reply.status}`;
  } catch {
    return 'down';
  }
}

export interface WokenDaemon {
  /** The wake command's argv for the fleet file. */
  readonly wakeCommand: readonly string[];
  /** A sleep command's argv that ends the daemon again (test/fixtures/stop-detached.mjs). */
  readonly sleepCommand: readonly string[];
  /** How many times the wake command ran so far. */
  runs(): Promise<number>;
}

/**
 * A daemon that only the wake command starts: its JSON spec in `dir`, on `port` with the node
 * token. When the test ends, the daemon and everything under it are killed by PID.
 */
export async function wokenDaemon(
  dir: string,
  port: number,
  /** `default`: the daemon samples at its own interval (15 s), not the tests' short one. */
  sampling: 'short' | 'default' = 'short',
): Promise<WokenDaemon> {
  const files = {
    pidFile: join(dir, 'woken.pid'),
    runsFile: join(dir, 'wake-runs.txt'),
    logFile: join(dir, 'woken.log'),
  };
  const spec = join(dir, 'wake-spec.json');
  await writeFile(
    spec,
    JSON.stringify({
      command: process.execPath,
      args: [SVC, 'daemon', '--api-addr', `127.0.0.1:${port}`],
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_CONFIG_DIR: join(dir, 'config-woken'),
        SVC_API_TOKEN: NODE_TOKEN,
        SVC_LOG_LEVEL: 'debug',
        SVC_STOP_GRACE_SECONDS: '1',
        ...(sampling === 'short' ? { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' } : {}),
      },
      ...files,
    }),
  );
  onTestFinished(async () => {
    const pids = (await readFile(files.pidFile, 'utf8').catch(() => '')).split('\n');
    // Every process under each daemon, listed before any is killed (a killed parent's children
    // would leave its tree).
    const trees = pids.filter(Boolean).flatMap((pid) => processTree(Number(pid)));
    for (const each of alive(trees)) {
      try {
        process.kill(each, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return {
    wakeCommand: [
      process.execPath,
      join(REPO_ROOT, 'test', 'fixtures', 'start-detached.mjs'),
      spec,
    ],
    sleepCommand: [
      process.execPath,
      join(REPO_ROOT, 'test', 'fixtures', 'stop-detached.mjs'),
      spec,
    ],
    runs: async () =>
      (await readFile(files.runsFile, 'utf8').catch(() => '')).split('\n').filter(Boolean).length,
  };
}

/**
 * A fleet of one daemon node, `sleeper`, whose daemon only the wake command starts: its Svcfile
 * (the tiny model at `model`, on a free engine port), `fleet.yaml` with the wake command (and the
 * sleep command when asked) and any top-level lines before `nodes:`, and the tokens in `.env`.
 */
export async function writeSleeperFleet(
  dir: string,
  woken: WokenDaemon,
  options: {
    readonly model: string;
    readonly daemonPort: number;
    readonly enginePort: number;
    readonly top?: readonly string[];
    readonly sleep?: boolean;
  },
): Promise<void> {
  const { model, daemonPort, enginePort, top = [], sleep = false } = options;
  await writeFile(
    join(dir, 'sleeper.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${enginePort}\n`,
  );
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      ...top,
      'nodes:',
      '  - name: sleeper',
      '    host: 127.0.0.1',
      `    port: ${daemonPort}`,
      '    tokenEnv: NODE_TOKEN',
      '    engineTokenEnv: ENGINE_KEY',
      '    file: sleeper.svc',
      '    engine: {host: 127.0.0.1}',
      `    wakeCommand: ${JSON.stringify(woken.wakeCommand)}`,
      ...(sleep ? [`    sleepCommand: ${JSON.stringify(woken.sleepCommand)}`] : []),
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
}

/**
 * The sleeper fleet under `idleStop`, with its sleep command and its daemon at the default
 * sampling interval, and the built gateway in front of it.
 */
export async function sleeperGateway(idleStop: string): Promise<{
  gateway: TestProcess;
  url: string;
  woken: WokenDaemon;
  daemonUrl: string;
}> {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  const daemonPort = await freePort();
  const woken = await wokenDaemon(dir, daemonPort, 'default');
  await writeSleeperFleet(dir, woken, {
    model,
    daemonPort,
    enginePort: await freePort(),
    top: [`idleStop: ${idleStop}`],
    sleep: true,
  });
  const { gateway, url } = await startTestGateway({ cwd: dir, configDir: join(dir, 'config') });
  return { gateway, url, woken, daemonUrl: `http://127.0.0.1:${daemonPort}` };
}
