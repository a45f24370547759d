import { describe, expect, it } from 'vitest';

import { didYouMean } from './closest-model.ts';

describe('didYouMean', () => {
  it('names the closest served name when the typo is near one', () => {
    expect(didYouMean('chta', ['good', 'chat', 'gone'])).toBe('did you mean "chat"? ');
    expect(didYouMean('Qwen', ['qwen', 'coder'])).toBe('did you mean "qwen"? ');
  });

  it('says nothing when no served name is near, or nothing is served', () => {
    expect(didYouMean('llama-70b', ['qwen', 'coder'])).toBe('');
    expect(didYouMean('chat', [])).toBe('');
  });
});
