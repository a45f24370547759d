/** `svc fleet usage` and `svc fleet activity` (docs/design.md D29) against an injected gateway. */
import { describe, expect, it } from 'vitest';

import type { Fleet } from '../core/fleet/file/fleet-file.ts';
import { activityLimit, runActivity } from './activity-command.ts';
import { newEntries } from './activity-text.ts';
import type { GetText } from './gateway-readout.ts';
import { runUsage } from './usage-command.ts';

const fleet = {
  path: '/lab/fleet.yaml',
  nodes: [],
  gateway: { name: 'lab', url: 'http://127.0.0.1:9', tokenEnv: 'GW_TOKEN' },
} as unknown as Fleet;

const entry = (n: number): Record<string, unknown> => ({
  at: `2026-01-01T00:00:0${n}.000Z`,
  caller: n % 2 === 0 ? 'ana' : 'ci',
  model: 'qwen',
  node: 'gpu-a',
  status: 200,
  queueMs: n,
  ttfbMs: 10,
  totalMs: 20,
  promptTokens: 5,
  completionTokens: 7,
  cachedTokens: null,
});

describe('svc fleet usage', () => {
  it('prints a row per caller and model, with the token of the variable the file names', async () => {
    const asked: (string | undefined)[] = [];
    const get: GetText = (url, token) => {
      asked.push(url, token);
      return Promise.resolve({
        status: 200,
        text: JSON.stringify({
          since: '2026-01-01T00:00:00.000Z',
          callers: [
            {
              name: 'ana',
              models: [
                {
                  model: 'qwen',
                  requests: 3,
                  promptTokens: 30,
                  completionTokens: 9,
                  cachedTokens: 12,
                },
              ],
            },
          ],
        }),
      });
    };
    let out = '';
    const variables = [{ GW_TOKEN: 'ana-token' }];
    await runUsage({ fleet, json: false, write: (t) => (out += t), variables, get });
    expect(asked).toEqual(['http://127.0.0.1:9/v1/fleet/usage', 'ana-token']);
    expect(out.split('\n')[1]).toMatch(/^ana\s+qwen\s+3\s+30\s+9\s+12$/);
    expect(out).not.toContain('ana-token');
  });

  it('says in one line which gateway did not answer', async () => {
    const get: GetText = () => Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:9'));
    await expect(
      runUsage({ fleet, json: false, write: () => undefined, variables: [], get }),
    ).rejects.toThrow(
      /^no gateway answers at http:\/\/127\.0\.0\.1:9 \(lab\): .*ECONNREFUSED[^\n]*$/,
    );
  });
});

describe('svc fleet activity', () => {
  it('prints oldest first, and while following only what is new', async () => {
    const reads = [
      [entry(2), entry(1)],
      [entry(4), entry(3), entry(2), entry(1)],
    ];
    // Every read, the first included, runs inside the loop that ends at Ctrl+C.
    let looping = false;
    const readWhileLooping: boolean[] = [];
    const get: GetText = () => {
      readWhileLooping.push(looping);
      return Promise.resolve({
        status: 200,
        text: JSON.stringify({ requests: reads.shift() ?? [] }),
      });
    };
    let out = '';
    await runActivity({
      fleet,
      json: true,
      follow: true,
      limit: undefined,
      write: (t) => (out += t),
      variables: [],
      get,
      every: async (_ms, step, first) => {
        looping = true;
        expect(first).toBe(true);
        await step();
        await step();
      },
    });
    expect(readWhileLooping).toEqual([true, true]);
    const printed = out
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { queueMs: number }).queueMs);
    expect(printed).toEqual([1, 2, 3, 4]);
  });

  it('tells equal-looking entries apart by the run they stand in', () => {
    const same = entry(1);
    expect(newEntries([same, entry(0)], [same, same, entry(0)])).toEqual([same]);
    expect(newEntries([entry(1)], [entry(3), entry(2)])).toEqual([entry(3), entry(2)]);
  });

  it('refuses a --limit out of range, naming the flag', () => {
    expect(() => activityLimit('0', false)).toThrow(
      '--limit must be a whole number from 1 to 1000, not "0"',
    );
    expect(activityLimit(undefined, false)).toBe(100);
  });
});
