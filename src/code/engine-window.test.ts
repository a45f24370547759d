/**
 * What svc code reads of a running engine's `/props` (engine-window.ts): one slot's n_ctx, and
 * where `/props` is beside an OpenAI base URL.
 */
import { describe, expect, it } from 'vitest';

import { propsUrl, slotContextOf } from './engine-window.ts';

describe('the engine window', () => {
  it('reads only a positive whole n_ctx, beside the OpenAI base', () => {
    expect(slotContextOf({ default_generation_settings: { n_ctx: 2048 } })).toBe(2048);
    expect(slotContextOf({ default_generation_settings: { n_ctx: 0 } })).toBeUndefined();
    expect(slotContextOf({ default_generation_settings: { n_ctx: '2048' } })).toBeUndefined();
    expect(slotContextOf(null)).toBeUndefined();
    expect(propsUrl('http://127.0.0.1:8080/v1')).toBe('http://127.0.0.1:8080/props');
    expect(propsUrl('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080/props');
  });
});
