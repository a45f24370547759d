/**
 * What the ledger keeps as nodes change, the earliest idle stop (idle-due.ts) and where each
 * model's next request goes (place-index.ts), is always what reading every node gives, over
 * random sequences of the ledger's changes: views, sends, ends, wakes and stops, and the rare
 * events after which everything is read afresh.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { Ledger } from '../ledger.ts';
import { idleDueOf } from '../nodes/idle-due.ts';
import { schedulerSettings } from '../settings.ts';
import { place } from './placement.ts';

const NODES = ['a', 'b', 'c', 'd'];
const MODELS = ['m', 'n'];

type Change =
  | {
      kind: 'view';
      node: number;
      running: boolean;
      ready: boolean;
      busy: number;
      at: number;
      serves: string[];
    }
  | { kind: 'send' | 'end' | 'wake' | 'wake-ended' | 'stop' | 'stop-ended'; node: number }
  | { kind: 'read' }
  | { kind: 'reread' };

const change: fc.Arbitrary<Change> = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('view' as const),
      node: fc.nat(NODES.length - 1),
      running: fc.oneof(fc.constant(true), fc.boolean()),
      ready: fc.oneof(fc.constant(true), fc.boolean()),
      busy: fc.oneof(fc.constant(0), fc.nat(2)),
      at: fc.oneof(fc.constant(0), fc.nat(100_000)),
      serves: fc.subarray(MODELS),
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
  { weight: 1, arbitrary: fc.constant({ kind: 'reread' as const }) },
);

describe('IdleDue and PlaceIndex', () => {
  it('agree with a read of every node after any sequence of changes', () => {
    const prefer = fc.constantFrom('idle' as const, 'active' as const);
    fc.assert(
      fc.property(fc.array(change, { maxLength: 60 }), prefer, (changes, preference) => {
        const books = new Ledger(
          schedulerSettings({
            prefer: preference,
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
        const check = (): void => {
          expect(books.idleDue.earliest()).toBe(brute());
          for (const model of MODELS) {
            for (const affinity of [undefined, ...NODES]) {
              const kept = books.placing.place(model, affinity)?.settings.name;
              const read = place(books.serving(model), model, preference, affinity);
              expect(kept).toBe(read?.settings.name);
            }
          }
        };
        for (const next of changes) {
          now += 10;
          const record = books.records['node' in next ? next.node : 0];
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
                  serves: next.running ? next.serves : [],
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
              check();
              break;
            case 'reread':
              books.rereadAll();
              break;
          }
        }
        check();
      }),
      { numRuns: 500 },
    );
  });
});
