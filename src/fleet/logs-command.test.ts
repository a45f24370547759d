/** `svc fleet logs` against an injected driver: a one-off read, and a follow under its signal. */
import { describe, expect, it } from 'vitest';

import type { LogsResponse } from '../core/contract/schemas.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';
import { runLogs } from './logs-command.ts';

const node = { name: 'gpu-a', kind: 'daemon' } as unknown as FleetNode;
const fleet = { path: '/lab/fleet.yaml', nodes: [node] } as unknown as Fleet;

const slice = (content: string, nextOffset: number): LogsResponse => ({
  content,
  nextOffset,
  size: nextOffset,
});

describe('svc fleet logs', () => {
  it('prints a one-off read with its unfinished last line, then exits 0', async () => {
    let out = '';
    const status = await runLogs({
      fleet,
      nodes: [node],
      json: false,
      follow: false,
      write: (text) => (out += text),
      warn: () => undefined,
      driver: { logs: () => Promise.resolve({ ok: true, value: slice('one\ntwo', 7) }) },
    });
    expect(status).toBe(0);
    expect(out).toBe('one\ntwo\n');
  });

  it('reads the first lines of a follow inside the loop that ends at Ctrl+C', async () => {
    // Ctrl+C the moment the first lines show must end the follow cleanly: the first read may
    // happen only once the loop (and with it the signal's listener) runs.
    let looping = false;
    const readWhileLooping: boolean[] = [];
    const replies = [slice('loaded\n', 7), slice('next\n', 12)];
    let out = '';
    const status = await runLogs({
      fleet,
      nodes: [node],
      json: true,
      follow: true,
      write: (text) => (out += text),
      warn: () => undefined,
      driver: {
        logs: () => {
          readWhileLooping.push(looping);
          return Promise.resolve({ ok: true, value: replies.shift() ?? slice('', 12) });
        },
      },
      every: async (_ms, step, first) => {
        looping = true;
        expect(first).toBe(true);
        await step();
        await step();
      },
    });
    expect(status).toBe(0);
    expect(readWhileLooping).toEqual([true, true]);
    expect(
      out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toEqual([
      { node: 'gpu-a', line: 'loaded' },
      { node: 'gpu-a', line: 'next' },
    ]);
  });
});
