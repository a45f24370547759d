/** Which gateway paths are a node's start or stop (fleet-control.ts). */
import { describe, expect, it } from 'vitest';

import { nodeActionOf } from './fleet-control.ts';

describe('nodeActionOf', () => {
  it('reads the node and the action of a control path', () => {
    expect(nodeActionOf('/v1/fleet/nodes/a/start')).toEqual({ name: 'a', action: 'start' });
    expect(nodeActionOf('/v1/fleet/nodes/gpu%20box/stop')).toEqual({
      name: 'gpu box',
      action: 'stop',
    });
  });

  it('leaves anything else alone', () => {
    expect(nodeActionOf('/v1/fleet/nodes/a/restart')).toBeUndefined();
    expect(nodeActionOf('/v1/fleet/nodes/a/b/start')).toBeUndefined();
    expect(nodeActionOf('/v1/fleet/nodes//start')).toBeUndefined();
    expect(nodeActionOf('/v1/fleet/nodes/%E0%A4%A/start')).toBeUndefined();
  });
});
