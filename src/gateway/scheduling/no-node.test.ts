/**
 * The `no_node` refusal, worded from the scheduler's decision (docs/design.md D19, D33): a
 * loopback-only engine is a 502 naming it; a silent node, when nothing answering describes the
 * model, a 502 naming it; otherwise a 404 `model_not_found` with why each node may not be woken,
 * the node and `svc fleet start` when its wake is off, and what is available.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import { Harness, MODEL, running, stopped } from '../../../test/support/scheduling/scheduling.ts';
import type { NodeView } from '../../core/fleet/scheduling/types.ts';
import { noNodeError } from './no-node.ts';

const FLEET = { path: 'fleet.yaml', nodes: [daemonNode('a'), daemonNode('b')] };

function refusal(...views: NodeView[]) {
  const h = new Harness({ nodes: [{ name: 'a' }, { name: 'b' }] }, views);
  return noNodeError(h.scheduler.route(MODEL, 0), {
    fleet: FLEET,
    available: { text: 'available: x', served: ['x'] },
  });
}

describe('noNodeError', () => {
  it('says why nothing may be woken: another model, or wake off naming the start command', () => {
    const error = refusal(
      stopped('a', { wakes: ['other'] }),
      stopped('b', { wakes: [], wakeOff: [MODEL] }),
    );
    expect(error.status).toBe(404);
    expect(error.code).toBe('model_not_found');
    expect(error.message).toBe(
      `the model "${MODEL}" is not available: no node in fleet.yaml may be woken for ${MODEL}:\n  a: its source describes other, not ${MODEL}\n  b: waking is off for this node; start it with \`svc fleet start b\`\navailable: x`,
    );
  });

  it('names a loopback-only engine with 502 loopback_only', () => {
    const error = refusal(
      running('a', { serves: [], unusable: 'node "a" is loopback-only' }),
      stopped('b', { wakes: ['other'] }),
    );
    expect(error.status).toBe(502);
    expect(error.code).toBe('loopback_only');
    expect(error.message).toBe('node "a" is loopback-only');
  });

  it('names a node that did not answer when nothing answering describes the model', () => {
    const silent: NodeView = {
      name: 'b',
      observedAt: 0,
      state: 'unreachable',
      ready: false,
      serves: [],
      detail: 'unreachable: ECONNREFUSED',
    };
    const error = refusal(stopped('a', { wakes: ['other'] }), silent);
    expect(error.status).toBe(502);
    expect(error.code).toBe('upstream_error');
    expect(error.message).toContain(`"b" did not answer, so whether it serves ${MODEL} is unknown`);
  });
});
