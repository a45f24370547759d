/** docs/design.md D29: a caller limited by `models` is refused others and sees only its own. */
import { describe, expect, it } from 'vitest';

import { tokenHash } from '../../core/fleet/file/fleet-callers.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { type Caller, callerChecker } from './caller-rights.ts';
import { checkModelAllowed, scopedFleet, scopedModels } from './caller-scope.ts';

const callerOf = callerChecker({
  token: 'gw',
  callers: [
    {
      name: 'ci',
      tokenSha256: tokenHash('ci'),
      models: ['tiny*'],
      wake: false,
      upstreams: true,
      priority: 'normal',
    },
  ],
});
function known(header: string): Caller {
  const caller = callerOf(header);
  if (caller === undefined) {
    throw new Error('expected a caller');
  }
  return caller;
}
const ci = known('Bearer ci');
const gateway = known('Bearer gw');

describe('caller scope', () => {
  it("refuses a model outside the caller's models with 403 model_not_allowed", () => {
    expect(() => checkModelAllowed(ci, 'tiny-q4')).not.toThrow();
    expect(() => checkModelAllowed(gateway, 'big')).not.toThrow();
    let refusal: unknown;
    try {
      checkModelAllowed(ci, 'big');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(GatewayError);
    expect(refusal).toMatchObject({ status: 403, code: 'model_not_allowed' });
    expect((refusal as Error).message).toContain('caller "ci" may not use the model "big"');
  });

  it('lists only allowed models; an unlimited caller gets the body untouched', () => {
    const body = JSON.stringify({ object: 'list', data: [{ id: 'tiny' }, { id: 'big' }] });
    expect(JSON.parse(scopedModels(body, ci))).toEqual({ object: 'list', data: [{ id: 'tiny' }] });
    expect(scopedModels(body, gateway)).toBe(body);
  });

  it("drops a node's disallowed model fields and queued models from /v1/fleet", () => {
    const body = JSON.stringify({
      queued: { big: 2, tiny: 1 },
      nodes: [
        { name: 'a', state: 'running', model: '/m/big.gguf', servedName: 'big' },
        { name: 'b', state: 'running', model: '/m/t.gguf', servedName: 'tiny' },
        { name: 'c', state: 'stopped', wakeableModel: 'big' },
      ],
    });
    expect(JSON.parse(scopedFleet(body, ci))).toEqual({
      queued: { tiny: 1 },
      nodes: [
        { name: 'a', state: 'running' },
        { name: 'b', state: 'running', model: '/m/t.gguf', servedName: 'tiny' },
        { name: 'c', state: 'stopped' },
      ],
    });
    expect(scopedFleet(body, gateway)).toBe(body);
  });
});
