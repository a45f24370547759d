import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { parseNvidiaSmi, readGpus } from './gpu.ts';

const MIB = 1024 * 1024;

describe('parseNvidiaSmi', () => {
  it('reads several GPUs, MiB to bytes', () => {
    expect(
      parseNvidiaSmi(
        '0, NVIDIA H100 80GB HBM3, 17, 40512, 81559, 41\n1, NVIDIA L40S, 0, 1, 46068, 30\n',
      ),
    ).toEqual([
      {
        index: 0,
        name: 'NVIDIA H100 80GB HBM3',
        utilization: 17,
        memoryUsed: 40512 * MIB,
        memoryTotal: 81559 * MIB,
        temperature: 41,
      },
      {
        index: 1,
        name: 'NVIDIA L40S',
        utilization: 0,
        memoryUsed: MIB,
        memoryTotal: 46068 * MIB,
        temperature: 30,
      },
    ]);
  });

  it('keeps commas inside a GPU name', () => {
    expect(parseNvidiaSmi('3, Tesla, rev 2, 5, 10, 20, 50')[0]).toMatchObject({
      index: 3,
      name: 'Tesla, rev 2',
      utilization: 5,
    });
  });

  it('omits bracketed figures ([N/A], [Not Supported]) instead of writing zero', () => {
    const [gpu] = parseNvidiaSmi('0, NVIDIA GB10, [N/A], [N/A], [Not Supported], 45');
    expect(gpu).toEqual({ index: 0, name: 'NVIDIA GB10', temperature: 45 });
  });

  it('skips short lines and lines without an index', () => {
    expect(parseNvidiaSmi('garbage\n, x, 1, 2, 3, 4\n0, ok, 1, 2, 3, 4\n\n')).toHaveLength(1);
  });
});

describe('readGpus', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-gpu-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function tool(name: string, script: string): Promise<string> {
    const path = join(dir, name);
    await writeFile(path, `#!/bin/sh\n${script}\n`);
    await chmod(path, 0o755);
    return path;
  }

  it('reports no source, and no error, when the tool is missing', async () => {
    expect(await readGpus(join(dir, 'no-such-tool'))).toEqual({ absent: true });
  });

  it('runs the tool with the query and parses its output', async () => {
    const path = await tool('smi-ok', 'echo "$@" >&2; echo "0, NVIDIA A100, 50, 100, 200, 60"');
    expect(await readGpus(path)).toEqual({
      gpus: [
        {
          index: 0,
          name: 'NVIDIA A100',
          utilization: 50,
          memoryUsed: 100 * MIB,
          memoryTotal: 200 * MIB,
          temperature: 60,
        },
      ],
    });
  });

  it('turns a failing tool into an errors entry', async () => {
    const path = await tool(
      'smi-fail',
      'echo "NVIDIA-SMI has failed because it couldn\'t communicate with the NVIDIA driver."; exit 9',
    );
    expect(await readGpus(path)).toEqual({
      error: `gpu: ${path} failed: NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.`,
    });
  });
});
