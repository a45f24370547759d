import { describe, expect, it } from 'vitest';

import { parseProcStat, terminateGroup, waitGroupGone } from './process-group.ts';

/** A fake clock and group: `sleep` advances time; members leave when their signal arrives. */
function fakeGroup(members: number[], obeys: (signal: NodeJS.Signals) => boolean) {
  let now = 0;
  const sent: NodeJS.Signals[] = [];
  let live = [...members];
  return {
    sent,
    options: {
      now: () => now,
      sleep: (ms: number) => {
        now += ms;
        return Promise.resolve();
      },
      members: () => live,
      signal: (_pgid: number, signal: NodeJS.Signals) => {
        sent.push(signal);
        if (obeys(signal)) {
          live = [];
        }
        return true;
      },
    },
  };
}

describe('parseProcStat', () => {
  it('reads state, group, session and start time after a name holding spaces and parentheses', () => {
    const fields = ['S', '1', '4242', '4242', ...Array<string>(15).fill('0'), '987654', '0'];
    expect(parseProcStat(`4242 (llama (server) x) ${fields.join(' ')}`)).toEqual({
      state: 'S',
      pgrp: 4242,
      session: 4242,
      startTime: 987654,
    });
    expect(parseProcStat('garbage')).toBeUndefined();
  });
});

describe('terminateGroup', () => {
  it('is done at once for an empty group', async () => {
    const group = fakeGroup([], () => true);
    expect(await terminateGroup(7, 3000, group.options)).toBe('gone');
    expect(group.sent).toEqual([]);
  });

  it('stops at SIGTERM when the group obeys it', async () => {
    const group = fakeGroup([7, 8], (signal) => signal === 'SIGTERM');
    expect(await terminateGroup(7, 3000, group.options)).toBe('terminated');
    expect(group.sent).toEqual(['SIGTERM']);
  });

  it('escalates to SIGKILL after the grace when a member ignores SIGTERM', async () => {
    const group = fakeGroup([7, 8], (signal) => signal === 'SIGKILL');
    expect(await terminateGroup(7, 3000, group.options)).toBe('killed');
    expect(group.sent).toEqual(['SIGTERM', 'SIGKILL']);
  });

  it('reports a group that survives SIGKILL as stuck', async () => {
    const group = fakeGroup([7], () => false);
    expect(await terminateGroup(7, 3000, group.options)).toBe('stuck');
  });
});

describe('waitGroupGone', () => {
  it('gives up at the deadline', async () => {
    const group = fakeGroup([7], () => false);
    expect(await waitGroupGone(7, 1000, group.options)).toBe(false);
  });
});
