/** What one request gets, read from the spec and the engine command it makes. */
import { describe, expect, it } from 'vitest';

import type { EngineSpec } from './engine-spec.ts';
import { nonChatFlag, requestWindow } from './request-window.ts';

const llama = (spec: Partial<EngineSpec>): EngineSpec => ({
  runner: 'llamacpp',
  model: 'org/m-GGUF:Q4_K_M',
  ...spec,
});
const preset = (entries: Record<string, string>) => [
  [],
  Object.entries(entries).map(([key, value]) => ({ key, value })),
];

describe('requestWindow', () => {
  it('takes CONTEXT as the window of one request, whatever PARALLEL (spec §1.3)', () => {
    expect(requestWindow(llama({ context: 8192, parallel: 4 }))).toEqual({
      context: 8192,
      contextFrom: 'CONTEXT',
    });
  });

  it("divides a preset's llama.cpp ctx-size among the slots the command states", () => {
    expect(requestWindow(llama({ presetLayers: preset({ c: '16384', np: '2' }) }))).toEqual({
      context: 8192,
      contextFrom: '--ctx-size 16384 / 2 slots',
    });
    expect(requestWindow(llama({ extraArgs: ['--ctx-size=4096'] }))).toEqual({
      context: 4096,
      contextFrom: '--ctx-size 4096',
    });
  });

  it("keeps vLLM's max-model-len whole: it sizes each request", () => {
    const spec: EngineSpec = {
      runner: 'vllm',
      model: 'org/m',
      extraArgs: ['--max-model-len', '9000', '--max-num-seqs', '4'],
    };
    expect(requestWindow(spec).context).toBe(9000);
  });

  it('states nothing when nothing sizes the context', () => {
    expect(requestWindow(llama({}))).toEqual({});
  });

  it('names the flag that makes the engine a pooling server', () => {
    expect(requestWindow(llama({ presetLayers: preset({ embeddings: '1' }) })).nonChat).toBe(
      '--embeddings',
    );
    expect(nonChatFlag('llamacpp', ['--reranking'])).toBe('--reranking');
    expect(nonChatFlag('vllm', ['serve', 'm', '--task', 'embed'])).toBe('--task embed');
    expect(nonChatFlag('vllm', ['serve', 'm', '--runner=pooling'])).toBe('--runner pooling');
    expect(nonChatFlag('vllm', ['serve', 'm', '--task', 'generate'])).toBeUndefined();
    expect(nonChatFlag('llamacpp', ['--jinja'])).toBeUndefined();
  });
});
