/**
 * The earliest idle stop kept as nodes change (idle-due.ts) is always what reading every node
 * gives, over random sequences of the ledger's changes: views, sends, ends, wakes and stops.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { idleDueOf } from './idle-due.ts';
import { Ledger } from './ledger.ts';
import { schedulerSettings } from './settings.ts';

const NODES = ['a', 'b', 'c', 'd'];

type Change =
  | { kind: 'view'; node: number; running: boolean; ready: boolean; busy: number; at: number }
  | { kind: 'send' | 'end' | 'wake' | 'wake-ended' | 'stop' | 'stop-ended'; node: number }
  | { kind: 'read' };

const change: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('view' as const),
      node: fc.nat(NODES.length - 1),
      running: fc.oneof(fc.constant(true), fc.boolean()),
      ready: fc.oneof(fc.constant(true), fc.boolean()),
      busy: fc.oneof(fc.constant(0), fc.nat(2)),
      at: fc.nat(100_000),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constantFrom('send', 'end'), node: fc.nat(NODES.length - 1) }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constantFrom('wake', 'wake-ended', 'stop', 'stop-ended'),
      node: fc.nat(NODES.length - 1),
    }),
  },
  { weight: 4, arbitrary: fc.constant({ kind: 'read' as const }) },
);

describe('IdleDue', () => {
  it('agrees with a read of every node after any sequence of changes', () => {
    fc.assert(
      fc.property(fc.array(change, { maxLength: 60 }), (changes) => {
        const books = new Ledger(
          schedulerSettings({
            nodes: NODES.map((name, index) => ({
              name,
              ...(index === 3 ? {} : { idleStopMs: 1_000 * (index + 1) }),
            })),
          }),
        );
        const running = new Map<number, number>();
        let now = 0;
        let id = 0;
        const brute = (): number | undefined => {
          const dues = books.idleWatched.map(idleDueOf).filter((at) => at !== undefined);
          return dues.length === 0 ? undefined : Math.min(...dues);
        };
        for (const next of changes) {
          now += 10;
          const record = books.records[next.kind === 'read' ? 0 : next.node];
          if (record === undefined) {
            continue;
          }
          const name = record.settings.name;
          switch (next.kind) {
            case 'view':
              books.views([
                {
                  name,
                  observedAt: now,
                  state: next.running ? 'running' : 'stopped',
                  ready: next.ready,
                  serves: next.running ? ['m'] : [],
                  slots: 2,
                  busy: next.busy,
                  lastActiveAt: next.at,
                },
              ]);
              break;
            case 'send':
              id += 1;
              books.dispatch({ id, model: 'm', streaming: false, enqueuedAt: now }, record, now);
              running.set(next.node, id);
              break;
            case 'end':
              books.end(running.get(next.node) ?? -1, now);
              running.delete(next.node);
              break;
            case 'wake':
              books.wake(record, 'm', 'demand', now);
              break;
            case 'wake-ended':
              books.wakeEnded(name, { detail: 'failed' }, now);
              break;
            case 'stop':
              books.stop(record, 'idle', now);
              break;
            case 'stop-ended':
              books.stopEnded(name, now % 20 === 0, now);
              break;
            case 'read':
              expect(books.idleDue.earliest()).toBe(brute());
              break;
          }
        }
        expect(books.idleDue.earliest()).toBe(brute());
      }),
      { numRuns: 500 },
    );
  });
});
