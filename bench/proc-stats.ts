/** What a benchmark reads about a process from /proc (Linux): CPU time, memory, descriptors. */
import { readdir, readFile, readlink } from 'node:fs/promises';

/** User plus system CPU time the process has used, in milliseconds. */
export async function cpuTimeMs(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at state; utime and stime are
  // fields 14 and 15, in clock ticks (100 per second on Linux).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}

/** Resident memory now and its peak (VmRSS, VmHWM), in MiB. */
export async function memoryMiB(pid: number): Promise<{ rss: number; peak: number }> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kib = (field: string): number =>
    Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kib('VmRSS') / 1024, peak: kib('VmHWM') / 1024 };
}

/** Open descriptors, and how many of them are sockets. */
export async function descriptors(pid: number): Promise<{ fds: number; sockets: number }> {
  const names = await readdir(`/proc/${pid}/fd`);
  let sockets = 0;
  for (const name of names) {
    const target = await readlink(`/proc/${pid}/fd/${name}`).catch(() => '');
    if (target.startsWith('socket:')) {
      sockets += 1;
    }
  }
  return { fds: names.length, sockets };
}
