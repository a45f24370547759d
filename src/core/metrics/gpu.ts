/**
 * GPU readings from `nvidia-smi` (spec §2.5 GpuStat). Parsing is pure; the query runs the tool
 * with a timeout. No tool on the host means no `gpus` and no error (spec §2.4: an absent source is
 * omitted); a tool that fails is an `errors` entry.
 */
import { execFile } from 'node:child_process';

import type { Stats } from '../contract/schemas.ts';

export type GpuStat = NonNullable<Stats['gpus']>[number];

export const NVIDIA_SMI_ARGS = [
  '--query-gpu=index,name,utilization.gpu,memory.used,memory.total,temperature.gpu',
  '--format=csv,noheader,nounits',
];

const MIB = 1024 * 1024;

/** A bracketed value (`[N/A]`, `[Not Supported]`, …) means the figure is absent. */
function figure(text: string | undefined): number | undefined {
  const trimmed = text?.trim() ?? '';
  if (trimmed === '' || trimmed.startsWith('[')) {
    return undefined;
  }
  const value = Number(trimmed);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * One GPU per line: index first, the last four fields from the right, and everything between
 * them the name (names may contain commas and spaces).
 */
export function parseNvidiaSmi(output: string): GpuStat[] {
  const gpus: GpuStat[] = [];
  for (const line of output.split('\n')) {
    const fields = line.split(',');
    if (fields.length < 6) {
      continue;
    }
    const index = figure(fields[0]);
    if (index === undefined || !Number.isInteger(index)) {
      continue;
    }
    const [utilization, used, total, temperature] = fields.slice(-4).map(figure);
    const name = fields.slice(1, -4).join(',').trim();
    gpus.push({
      index,
      ...(name === '' || name.startsWith('[') ? {} : { name }),
      ...(utilization === undefined ? {} : { utilization: Math.round(utilization) }),
      ...(used === undefined ? {} : { memoryUsed: Math.round(used * MIB) }),
      ...(total === undefined ? {} : { memoryTotal: Math.round(total * MIB) }),
      ...(temperature === undefined ? {} : { temperature: Math.round(temperature) }),
    });
  }
  return gpus;
}

export type GpuReading = { gpus: GpuStat[] } | { error: string } | { absent: true };

export function readGpus(tool = 'nvidia-smi', timeoutMs = 5_000): Promise<GpuReading> {
  return new Promise((resolve) => {
    execFile(
      tool,
      NVIDIA_SMI_ARGS,
      { timeout: timeoutMs, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error !== null) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
            resolve({ absent: true });
            return;
          }
          const detail = (stdout.trim() || stderr.trim() || error.message).split('\n')[0] ?? '';
          resolve({ error: `gpu: ${tool} failed: ${detail}` });
          return;
        }
        resolve({ gpus: parseNvidiaSmi(stdout) });
      },
    );
  });
}
