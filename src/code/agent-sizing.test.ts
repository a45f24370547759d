/** Sizing an agent: OUTPUT read as tokens, non-chat models refused, the first-prompt warning. */
import { describe, expect, it } from 'vitest';

import { unwrap } from '../core/project/diagnostics.ts';
import { parseSvcfile } from '../core/project/parse.ts';
import { resolveProject } from '../core/project/resolve.ts';
import { firstPromptWarning, projectFacts, refuseNonChat } from './agent-sizing.ts';
import { mergeFacts } from './fleet-models.ts';
import { OPENCODE } from './opencode.ts';
import { PI } from './pi.ts';

function opened(text: string) {
  const project = unwrap(parseSvcfile(text, 'proj/Svcfile'));
  return { project, spec: unwrap(resolveProject({ project, supervised: false })).spec };
}

describe('projectFacts', () => {
  it('reads CONTEXT and OUTPUT (with a k suffix) as the limits', () => {
    expect(
      projectFacts(opened('PROVIDER llamacpp\nMODEL o/m-GGUF:Q4\nCONTEXT 32k\nOUTPUT 4k\n')),
    ).toEqual({ limits: { context: 32_000, contextFrom: 'CONTEXT', output: 4000 } });
  });

  it('refuses an OUTPUT that is no number of tokens, naming the file and line', () => {
    expect(() =>
      projectFacts(opened('PROVIDER llamacpp\nMODEL o/m-GGUF:Q4\nOUTPUT lots\n')),
    ).toThrow(
      'proj/Svcfile:3: OUTPUT "lots" is not a positive number of tokens (write 4096 or 4k)',
    );
  });
});

describe('refuseNonChat', () => {
  it('names the flag and where it comes from', () => {
    expect(() => refuseNonChat('embed', { limits: {}, nonChat: '--embeddings' }, 'e.svc')).toThrow(
      'embed answers no chat (e.svc starts its engine with --embeddings, an embedding or reranking server): name a chat model with --model',
    );
    expect(() => refuseNonChat('chat', { limits: {} }, 'c.svc')).not.toThrow();
  });
});

describe('firstPromptWarning', () => {
  it("warns when the window is smaller than the agent's measured first prompt", () => {
    expect(
      firstPromptWarning(OPENCODE, 'coder', {
        context: 8192,
        contextFrom: '--ctx-size 16384 / 2 slots',
      }),
    ).toBe(
      "svc code: warning: coder gives one request 8192 tokens (--ctx-size 16384 / 2 slots), less than opencode's first prompt (about 12122 tokens): its first request will not fit; raise CONTEXT in the model's Svcfile",
    );
  });

  it('says nothing when the window is large enough, unknown, or the agent unmeasured', () => {
    expect(firstPromptWarning(OPENCODE, 'coder', { context: 32_768 })).toBeUndefined();
    expect(firstPromptWarning(OPENCODE, 'coder', {})).toBeUndefined();
    expect(firstPromptWarning(PI, 'coder', { context: 10 })).toBeUndefined();
  });
});

describe('mergeFacts', () => {
  it('keeps a name that any node serves for chat, with the smallest window stated', () => {
    const merged = mergeFacts([
      ['m', { limits: { context: 32_000, output: 4000 } }],
      ['m', { limits: { context: 8000 }, nonChat: '--embedding' }],
      ['e', { limits: {}, nonChat: '--embedding' }],
      ['e', { limits: {}, nonChat: '--rerank' }],
    ]);
    expect(merged.get('m')).toEqual({ limits: { context: 8000, output: 4000 } });
    expect(merged.get('e')?.nonChat).toBe('--embedding');
  });
});
