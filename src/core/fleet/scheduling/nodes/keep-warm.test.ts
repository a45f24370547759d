/**
 * Keep-warm (docs/design.md D26 `keepWarm`): started with the gateway, at the first view that
 * answers, once; never beside a full group.
 */
import { describe, expect, it } from 'vitest';

import {
  brief,
  Harness,
  MODEL,
  running,
  stopped,
} from '../../../../../test/support/scheduling/scheduling.ts';

describe('keep-warm', () => {
  it('starts a stopped keep-warm node at the first view, once', () => {
    const h = new Harness({ nodes: [{ name: 'a', keepWarm: true }, { name: 'b' }] });
    expect(brief(h.views(stopped('a'), stopped('b')))).toEqual([`wake a ${MODEL} (keep-warm)`]);
    h.wakeReady(running('a'));
    h.now = 1_000;
    // Stopped by hand later: it stays stopped until a request wakes it.
    expect(h.views(stopped('a'))).toEqual([]);
  });

  it('leaves a running one be, and waits for an unreachable one to answer', () => {
    const h = new Harness({
      nodes: [
        { name: 'a', keepWarm: true },
        { name: 'b', keepWarm: true },
      ],
    });
    expect(h.views(running('a'), { ...stopped('b'), state: 'unreachable', serves: [] })).toEqual(
      [],
    );
    h.now = 1;
    expect(brief(h.views(stopped('b')))).toEqual([`wake b ${MODEL} (keep-warm)`]);
  });

  it('does not start beside a full group', () => {
    const h = new Harness({
      nodes: [
        { name: 'a', group: 'gpu' },
        { name: 'b', group: 'gpu', keepWarm: true },
      ],
      groups: new Map([['gpu', { max: 1, minResidencyMs: 0 }]]),
    });
    expect(h.views(running('a'), stopped('b'))).toEqual([]);
  });
});
