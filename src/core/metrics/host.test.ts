import { describe, expect, it } from 'vitest';

import {
  cpuPercent,
  parseMeminfo,
  parseProcStat,
  parseVmStat,
  readCpuTimes,
  readMemory,
} from './host.ts';

describe('host readings', () => {
  it('reads the aggregate cpu line of /proc/stat, idle and iowait as idle', () => {
    const stat = 'cpu  100 10 50 800 40 0 0 0 0 0\ncpu0 50 5 25 400 20 0 0 0 0 0\n';
    expect(parseProcStat(stat)).toEqual({ busy: 160, total: 1000 });
    expect(parseProcStat('intr 1 2 3\n')).toBeUndefined();
  });

  it('computes whole-host CPU percent from two readings', () => {
    expect(cpuPercent({ busy: 160, total: 1000 }, { busy: 210, total: 1200 })).toBe(25);
    expect(cpuPercent({ busy: 160, total: 1000 }, { busy: 160, total: 1000 })).toBeUndefined();
  });

  it('reads total and used (total − available) memory from /proc/meminfo', () => {
    const meminfo =
      'MemTotal:       16000000 kB\nMemFree:         1000000 kB\nMemAvailable:    4000000 kB\n';
    expect(parseMeminfo(meminfo)).toEqual({ total: 16000000 * 1024, used: 12000000 * 1024 });
    expect(parseMeminfo('MemTotal: 1 kB\n')).toBeUndefined();
  });

  it('reads memory in use from macOS vm_stat', () => {
    const text =
      'Mach Virtual Memory Statistics: (page size of 16384 bytes)\nPages free:  100.\nPages active:  200.\nPages wired down:  50.\nPages occupied by compressor:  10.\n';
    expect(parseVmStat(text)).toBe((200 + 50 + 10) * 16384);
    expect(parseVmStat('nothing')).toBeUndefined();
  });

  it('reads this machine', async () => {
    const times = await readCpuTimes();
    expect(times?.total).toBeGreaterThan(0);
    const memory = await readMemory();
    expect(memory?.total).toBeGreaterThan(memory?.used ?? Infinity);
  });
});
