import { describe, expect, it } from 'vitest';

import { type GroupCheck, recordedGroup } from './pid-record.ts';

function check(
  processes: Record<number, { start: number; cmd?: string; pgrp: number }>,
): GroupCheck {
  return {
    members: (pgid) =>
      Object.entries(processes)
        .filter(([, entry]) => entry.pgrp === pgid)
        .map(([pid]) => Number(pid)),
    startTimeOf: (pid) => processes[pid]?.start,
    commandLineOf: (pid) => Promise.resolve(processes[pid]?.cmd),
  };
}

const record = { pid: 500, bin: '/opt/llama-server', startedAt: '', startTime: 1000 };

describe('recordedGroup: only the recorded engine group is ever signalled', () => {
  it('takes the whole group when the leader has the recorded start time', async () => {
    const live = check({ 500: { start: 1000, pgrp: 500 }, 501: { start: 1001, pgrp: 500 } });
    expect(await recordedGroup(record, live)).toEqual([500, 501]);
  });

  it('leaves a recycled PID alone: same pid, another start time', async () => {
    const live = check({ 500: { start: 7000, pgrp: 500 } });
    expect(await recordedGroup(record, live)).toEqual([]);
  });

  it('takes the children a dead leader left in its group', async () => {
    const live = check({ 501: { start: 1001, pgrp: 500 }, 502: { start: 1002, pgrp: 500 } });
    expect(await recordedGroup(record, live)).toEqual([501, 502]);
  });

  it('leaves members that started before the recorded leader did', async () => {
    const live = check({ 501: { start: 900, pgrp: 500 } });
    expect(await recordedGroup(record, live)).toEqual([]);
  });

  it('falls back to the command line for a record without a start time', async () => {
    const { startTime: _dropped, ...old } = record;
    expect(
      await recordedGroup(
        old,
        check({ 500: { start: 1, cmd: '/opt/llama-server -m x', pgrp: 500 } }),
      ),
    ).toEqual([500]);
    expect(
      await recordedGroup(old, check({ 500: { start: 1, cmd: 'sleep 30', pgrp: 500 } })),
    ).toEqual([]);
    // Without a start time, a leaderless group cannot be proved to be the engine's.
    expect(await recordedGroup(old, check({ 501: { start: 1, pgrp: 500 } }))).toEqual([]);
  });

  it('refuses nonsense PIDs', async () => {
    expect(
      await recordedGroup({ ...record, pid: 1 }, check({ 1: { start: 1000, pgrp: 1 } })),
    ).toEqual([]);
  });
});
