/**
 * A local node's engine environment (docs/design.md D27): what `svc serve` gives the engine from
 * the same Svcfile (the gateway's environment, the `.env` beside the Svcfile for what that leaves
 * unset or empty, the Svcfile's ENV lines over both), read by the local driver's wake source and
 * handed to the engine it starts; a daemon node's source carries none, so ENV values never leave
 * this machine. Real Svcfiles in a temp dir, fake engines: no process starts.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { daemonNode, localNode } from '../../../../test/support/project-files/fleet-node.ts';
import { freshDir, svcfile } from '../../../../test/support/project-files/project-dirs.ts';
import { createLogger } from '../../logger.ts';
import { openProject } from '../../project/open-project.ts';
import type { EngineProcess, EngineProcessOptions } from '../../runner/engine-process.ts';
import type { Fleet, Variables } from '../file/fleet-file.ts';
import { fleetDriver } from './by-kind.ts';
import { type LocalEngineEdges, LocalEngines } from './local-engines.ts';

const AT = new Date('2025-01-01T12:00:00.000Z');
const GATEWAY_ENV: Variables = {
  PATH: '/gateway/bin',
  HOME: '/home/me',
  FROM_GATEWAY: 'kept',
  EMPTY_HERE: '',
  LLAMA_ARG_CONTEXT_SHIFT: '0',
  SVC_API_TOKEN: 'tok-never-for-engines',
};
const SVCFILE = [
  'PROVIDER llamacpp',
  'MODEL org/tiny-GGUF',
  'ALIAS tiny',
  // A port of its own, so the driver asks for no free one.
  'BASEURL 127.0.0.1:9001',
  'ENV LLAMA_ARG_CONTEXT_SHIFT=1',
  'ENV CUDA_VISIBLE_DEVICES=1',
  'ENV PATH=/svcfile/bin',
  'ENV HF_TOKEN=hf-secret-value',
  '',
].join('\n');

interface World {
  readonly fleet: Fleet;
  readonly svcfile: string;
  readonly launched: EngineProcessOptions[];
  /** The PATH each binary lookup searched. */
  readonly lookedUp: (string | undefined)[];
  readonly driver: ReturnType<typeof fleetDriver>;
  /** Every line the gateway's logger wrote, debug included. */
  readonly logged: string[];
}

async function world(): Promise<World> {
  const dir = await freshDir();
  const path = await svcfile(join(dir, 'box'), SVCFILE);
  await writeFile(join(dir, 'box', '.env'), 'EMPTY_HERE=from-dotenv\nFROM_GATEWAY=dotenv\n');
  const fleet: Fleet = { path: join(dir, 'fleet.yaml'), nodes: [] };
  const launched: EngineProcessOptions[] = [];
  const lookedUp: (string | undefined)[] = [];
  const logged: string[] = [];
  const edges: LocalEngineEdges = {
    supervisor: {
      now: () => AT,
      startEngine: (options) => {
        launched.push(options);
        const process: EngineProcess = {
          pid: 1001,
          watchdogPid: 501,
          startedAt: AT,
          exited: new Promise(() => undefined),
          stop: () => Promise.resolve('terminated'),
        };
        return Promise.resolve(process);
      },
      locateBinary: (_runner, searchPath) => {
        lookedUp.push(searchPath);
        return '/opt/engines/llama-server';
      },
      runStop: () => Promise.resolve({ ok: true }),
      answers: () => Promise.resolve(true),
      pidRecord: {
        write: () => Promise.resolve(),
        clear: () => Promise.resolve(),
        startTime: () => undefined,
      },
    },
    watcher: () => ({
      begin: () => undefined,
      end: () => undefined,
      refreshTokens: () => Promise.resolve(),
    }),
    reap: () => Promise.resolve(undefined),
    writeKey: () => Promise.resolve(),
    removeKey: () => Promise.resolve(),
    claim: (stateDir) =>
      Promise.resolve({
        path: join(stateDir, 'gateway.json'),
        bound: () => Promise.resolve(),
        release: () => Promise.resolve(),
      }),
  };
  const engines = new LocalEngines(
    {
      stateDir: join(dir, 'cfg'),
      fleetPath: fleet.path,
      env: GATEWAY_ENV,
      logger: createLogger('debug', { write: (line) => logged.push(line) }),
      stopGraceMs: 10_000,
      sampleIntervalMs: 15_000,
    },
    edges,
  );
  // The gateway's own driver: local nodes through these engines, daemon nodes over HTTP.
  const driver = fleetDriver(
    { fleet, configDir: join(dir, 'cfg'), env: GATEWAY_ENV },
    { local: engines },
  );
  return { fleet, svcfile: path, launched, lookedUp, driver, logged };
}

const NODE = localNode('box', { file: 'box/Svcfile' });

describe('local node environment', () => {
  it('starts the engine with the ENV lines, the .env beside the Svcfile and the gateway env', async () => {
    const w = await world();
    const source = await w.driver.wakeSource(NODE);
    expect(source.source).toBe(w.svcfile);
    expect(await w.driver.start(NODE, source)).toMatchObject({ ok: true });
    const env = w.launched[0]?.env ?? {};
    expect(env).toMatchObject({
      LLAMA_ARG_CONTEXT_SHIFT: '1',
      CUDA_VISIBLE_DEVICES: '1',
      HF_TOKEN: 'hf-secret-value',
      EMPTY_HERE: 'from-dotenv',
      FROM_GATEWAY: 'kept',
      HOME: '/home/me',
    });
    // ENV PATH is where the binary is looked up too, as under serve.
    expect(env['PATH']).toBe('/svcfile/bin');
    expect(w.lookedUp).toEqual(['/svcfile/bin']);
    // The API token drives svc, never the engine (spec §5 rule 5).
    expect(env).not.toHaveProperty('SVC_API_TOKEN');
    // The environment is handed to the engine, never written to a log line.
    expect(w.logged.join('')).toContain('starting engine');
    expect(w.logged.join('')).not.toMatch(/hf-secret-value|CUDA_VISIBLE_DEVICES|HF_TOKEN/);
  });

  it('is exactly the environment svc serve computes from the same Svcfile', async () => {
    const w = await world();
    const source = await w.driver.wakeSource(NODE);
    const served = await openProject(w.svcfile, {
      cwd: '/',
      env: GATEWAY_ENV,
      aliases: () => Promise.resolve({}),
      supervised: true,
    });
    expect(source.env).toEqual(served.env);
  });

  it('runs with the gateway environment when the source carries none', async () => {
    const w = await world();
    const { env: _env, ...withoutEnv } = await w.driver.wakeSource(NODE);
    await w.driver.start(NODE, withoutEnv);
    const env = w.launched[0]?.env ?? {};
    expect(env['LLAMA_ARG_CONTEXT_SHIFT']).toBe('0');
    expect(w.lookedUp).toEqual(['/gateway/bin']);
  });

  it('gives a daemon node the config alone: ENV values never leave this machine', async () => {
    const w = await world();
    const source = await w.driver.wakeSource(daemonNode('box', { file: 'box/Svcfile' }));
    expect(source).not.toHaveProperty('env');
    expect(JSON.stringify(source)).not.toContain('CUDA_VISIBLE_DEVICES');
  });
});
