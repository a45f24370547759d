import { describe, expect, it } from 'vitest';

import { deployBody, normaliseVersionPin } from './deploy-body.ts';

describe('deployBody', () => {
  it('adds the fleet file instance type and drops a pin’s leading v', () => {
    expect(
      deployBody(
        'gpu-a',
        { runner: 'vllm', modelId: 'm', spinloopVersion: 'v1.4.0' },
        'g6e.xlarge',
      ),
    ).toEqual({
      runner: 'vllm',
      modelId: 'm',
      spinloopVersion: '1.4.0',
      instanceType: 'g6e.xlarge',
    });
  });

  it('leaves an empty pin out (the latest release) and keeps a bare one', () => {
    expect(deployBody('n', { runner: 'llamacpp', spinloopVersion: '' }, undefined)).toEqual({
      runner: 'llamacpp',
    });
    expect(normaliseVersionPin('1.4.0')).toBe('1.4.0');
    expect(normaliseVersionPin('v2')).toBe('2');
    expect(normaliseVersionPin('vnext')).toBe('vnext');
  });

  it("never sends enginePath: a remote engine's path is the one its control plane publishes", () => {
    expect(
      deployBody('n', { runner: 'vllm', modelId: 'm', enginePath: '/api/v1' }, undefined),
    ).toEqual({ runner: 'vllm', modelId: 'm' });
  });

  it('refuses an instance type that is not family.size, naming the node and field', () => {
    expect(() =>
      deployBody('gpu-a', { runner: 'vllm', instanceType: 'xlarge' }, undefined),
    ).toThrow(/node "gpu-a": instanceType "xlarge" is not an instance type/);
  });
});
