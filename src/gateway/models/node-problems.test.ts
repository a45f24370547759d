import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import type { NodeSource } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { localProblems, startProblem } from './node-problems.ts';

const llama = (model: string): NodeSource => ({
  source: '/srv/fleet/a/Svcfile',
  config: { runner: 'llamacpp', modelId: model },
});

describe('startProblem', () => {
  it("is the source's own error, a missing model file, or nothing", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-problems-'));
    const present = join(dir, 'tiny.gguf');
    await writeFile(present, 'GGUF');
    const broken = Promise.reject(new Error('/srv/fleet/a/Svcfile:4: unknown keyword "CONTEXTT"'));
    expect(await startProblem(broken)).toBe('/srv/fleet/a/Svcfile:4: unknown keyword "CONTEXTT"');
    expect(await startProblem(Promise.resolve(llama(join(dir, 'gone.gguf'))))).toBe(
      `/srv/fleet/a/Svcfile: the model file ${join(dir, 'gone.gguf')} does not exist`,
    );
    expect(await startProblem(Promise.resolve(llama(present)))).toBeUndefined();
    // A hub repo is fetched by the engine: nothing to check here.
    expect(await startProblem(Promise.resolve(llama('org/repo-GGUF:Q4_K_M')))).toBeUndefined();
  });
});

describe('localProblems', () => {
  it('checks local nodes only, and lists those with a problem', async () => {
    const local = (name: string): FleetNode =>
      ({ ...daemonNode(name), kind: 'local', file: `${name}.svc` }) as unknown as FleetNode;
    const asked: string[] = [];
    const found = await localProblems([local('ok'), local('bad'), daemonNode('d')], (node) => {
      asked.push(node.name);
      return node.name === 'bad'
        ? Promise.reject(new Error('bad.svc:2: MODEL is required'))
        : Promise.resolve(llama('org/repo-GGUF:Q4_K_M'));
    });
    expect(asked).toEqual(['ok', 'bad']);
    expect(found).toEqual(new Map([['bad', ['bad.svc:2: MODEL is required']]]));
  });
});
