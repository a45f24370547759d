/**
 * Whole-host CPU utilisation and memory (spec §2.5 CpuStat, MemoryStat). Linux reads /proc/stat
 * (CPU time deltas between two readings) and /proc/meminfo (used = total − available); other
 * systems use Node's own per-core times and, on macOS, `vm_stat` for memory in use. The
 * arithmetic is pure; reading the sources is the only I/O.
 */
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';

export interface CpuTimes {
  readonly busy: number;
  readonly total: number;
}

/** The aggregate `cpu` line of /proc/stat: idle + iowait are idle, the rest busy (guest is in user). */
export function parseProcStat(text: string): CpuTimes | undefined {
  const line = text.split('\n').find((row) => row.startsWith('cpu '));
  const fields = line?.trim().split(/\s+/).slice(1, 9).map(Number);
  if (
    fields === undefined ||
    fields.length < 4 ||
    fields.some((value) => !Number.isFinite(value))
  ) {
    return undefined;
  }
  const total = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** Percent busy between two readings; undefined when no time passed. */
export function cpuPercent(previous: CpuTimes, current: CpuTimes): number | undefined {
  const total = current.total - previous.total;
  if (total <= 0) {
    return undefined;
  }
  const busy = Math.max(0, current.busy - previous.busy);
  return Math.min(100, Math.round((busy / total) * 1000) / 10);
}

/** MemTotal and MemAvailable (kB) from /proc/meminfo → bytes. */
export function parseMeminfo(text: string): { total: number; used: number } | undefined {
  const value = (key: string): number | undefined => {
    const match = new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text);
    return match?.[1] === undefined ? undefined : Number(match[1]) * 1024;
  };
  const total = value('MemTotal');
  const available = value('MemAvailable');
  if (total === undefined || available === undefined) {
    return undefined;
  }
  return { total, used: Math.max(0, total - available) };
}

/** macOS `vm_stat`: used = (active + wired + compressed pages) × page size. */
export function parseVmStat(text: string): number | undefined {
  const pageSize = Number(/page size of (\d+) bytes/.exec(text)?.[1]);
  const pages = (label: string): number =>
    Number(new RegExp(`${label}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  if (!Number.isFinite(pageSize) || pageSize <= 0) {
    return undefined;
  }
  return (
    (pages('Pages active') + pages('Pages wired down') + pages('Pages occupied by compressor')) *
    pageSize
  );
}

export async function readCpuTimes(): Promise<CpuTimes | undefined> {
  if (process.platform === 'linux') {
    return parseProcStat(await readFile('/proc/stat', 'utf8'));
  }
  let busy = 0;
  let total = 0;
  for (const core of cpus()) {
    const { user, nice, sys, idle, irq } = core.times;
    busy += user + nice + sys + irq;
    total += user + nice + sys + idle + irq;
  }
  return total > 0 ? { busy, total } : undefined;
}

export async function readMemory(): Promise<{ total: number; used: number } | undefined> {
  if (process.platform === 'linux') {
    return parseMeminfo(await readFile('/proc/meminfo', 'utf8'));
  }
  if (process.platform === 'darwin') {
    const output = await new Promise<string>((resolve, reject) => {
      execFile('vm_stat', { timeout: 5_000, encoding: 'utf8' }, (error, stdout) => {
        if (error === null) {
          resolve(stdout);
        } else {
          reject(new Error(`vm_stat failed: ${error.message}`));
        }
      });
    });
    const used = parseVmStat(output);
    return used === undefined ? undefined : { total: totalmem(), used };
  }
  return undefined;
}
