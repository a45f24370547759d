/**
 * The second line of defence against orphaned engines (the first is the parent-death signal):
 * the daemon records the engine's PID while it runs, and the next daemon over the same config
 * dir stops a recorded engine that is still alive before it does anything else. The command line
 * in /proc is checked first so a recycled PID is never killed.
 */
import { readFile, rm } from 'node:fs/promises';

import { writeFileAtomic } from '../fs/atomic-write.ts';

export interface PidRecord {
  readonly pid: number;
  readonly bin: string;
  readonly startedAt: string;
}

export async function writePidRecord(path: string, record: PidRecord): Promise<void> {
  await writeFileAtomic(path, `${JSON.stringify(record)}\n`);
}

export async function clearPidRecord(path: string): Promise<void> {
  await rm(path, { force: true });
}

async function commandLineOf(pid: number): Promise<string | undefined> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0').join(' ');
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops the engine a previous daemon left behind, if any. Returns the PID it stopped, or
 * undefined when there was nothing to do. The record is removed either way.
 */
export async function reapRecordedEngine(
  path: string,
  graceMs = 5_000,
): Promise<number | undefined> {
  let record: PidRecord;
  try {
    record = JSON.parse(await readFile(path, 'utf8')) as PidRecord;
  } catch {
    await clearPidRecord(path);
    return undefined;
  }
  const { pid } = record;
  const commandLine = await commandLineOf(pid);
  const ours =
    Number.isInteger(pid) && pid > 1 && alive(pid) && commandLine?.includes(record.bin) === true;
  if (ours) {
    const signal = (name: NodeJS.Signals): void => {
      try {
        process.kill(-pid, name);
      } catch {
        process.kill(pid, name);
      }
    };
    signal('SIGTERM');
    const deadline = Date.now() + graceMs;
    while (alive(pid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (alive(pid)) {
      signal('SIGKILL');
    }
  }
  await clearPidRecord(path);
  return ours ? pid : undefined;
}
