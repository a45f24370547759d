/**
 * The fleet `svc fleet`'s end-to-end tests and docs examples run against: gpu-a (a real daemon
 * that runs the real llama-server on the tiny model, ALIAS tiny), gpu-b (a real daemon with
 * nothing running; its Svcfile describes tiny-b) and gpu-c (a node whose token variable,
 * GPU_C_TOKEN, is set nowhere: a configuration error). Node token and engine key come from the
 * .env beside fleet.yaml. Daemons are started through startProcess(): killed by PID at the end.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { writeTinyModel } from '../models/tiny-model.ts';
import { freePort, startTestDaemon, type TestDaemon } from './daemon.ts';
import { ENGINE_KEY, NODE_TOKEN } from './gateway-fleet.ts';
import { tempDir } from './svc.ts';

export interface ThreeNodeFleet {
  readonly dir: string;
  readonly gpuA: TestDaemon;
  readonly gpuB: TestDaemon;
  /** The port gpu-a's engine listens on once started. */
  readonly enginePort: number;
}

export async function threeNodeFleet(): Promise<ThreeNodeFleet> {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  const daemon = (name: string): Promise<TestDaemon> =>
    startTestDaemon({
      configDir: join(dir, `config-${name}`),
      token: NODE_TOKEN,
      env: { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
  const [gpuA, gpuB] = [await daemon('gpu-a'), await daemon('gpu-b')];
  const enginePort = await freePort();
  await writeFile(
    join(dir, 'gpu-a.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${enginePort}\n`,
  );
  for (const name of ['gpu-b', 'gpu-c']) {
    await writeFile(
      join(dir, `${name}.svc`),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-${name.slice(-1)}\n`,
    );
  }
  const node = (name: string, daemonUrl: string): string[] => [
    `  - name: ${name}`,
    '    host: 127.0.0.1',
    `    port: ${new URL(daemonUrl).port}`,
    '    tokenEnv: NODE_TOKEN',
    '    engineTokenEnv: ENGINE_KEY',
    `    file: ${name}.svc`,
    '    engine: {host: 127.0.0.1}',
  ];
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      ...node('gpu-a', gpuA.url),
      ...node('gpu-b', gpuB.url),
      '  - name: gpu-c',
      '    host: 127.0.0.1',
      '    port: 1',
      '    tokenEnv: GPU_C_TOKEN',
      '    file: gpu-c.svc',
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
  return { dir, gpuA, gpuB, enginePort };
}
