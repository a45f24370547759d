/**
 * Start-up cost of the built CLI: `svc --version` against a bare `node -e 0`, interleaved runs,
 * medians compared. Target: at most 1.5x.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

export interface StartupResult {
  runs: number;
  nodeMedianMs: number;
  svcMedianMs: number;
  ratio: number;
}

function timeOnce(args: string[]): number {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: 'ignore' });
  if (result.status !== 0) {
    throw new Error(`node ${args.join(' ')} exited with ${result.status}`);
  }
  return Number(process.hrtime.bigint() - started) / 1e6;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function benchStartup(repoRoot: string, runs = 41): StartupResult {
  const cli = join(repoRoot, 'dist', 'cli.js');
  const bare: number[] = [];
  const svc: number[] = [];
  // Warm the file cache, then alternate so drift on the machine hits both sides alike.
  timeOnce(['-e', '0']);
  timeOnce([cli, '--version']);
  for (let run = 0; run < runs; run += 1) {
    bare.push(timeOnce(['-e', '0']));
    svc.push(timeOnce([cli, '--version']));
  }
  const nodeMedianMs = median(bare);
  const svcMedianMs = median(svc);
  return { runs, nodeMedianMs, svcMedianMs, ratio: svcMedianMs / nodeMedianMs };
}
