/** The model a `/v1/models/<id>` path names (model-endpoints.ts). */
import { describe, expect, it } from 'vitest';

import { modelIdOf } from './model-endpoints.ts';

describe('modelIdOf', () => {
  it('takes everything after /v1/models/, slashes included', () => {
    expect(modelIdOf('/v1/models/org/repo-GGUF:Q4_K_M')).toBe('org/repo-GGUF:Q4_K_M');
    expect(modelIdOf('/v1/models/a%20b')).toBe('a b');
    expect(modelIdOf('/v1/models/')).toBeUndefined();
    expect(modelIdOf('/v1/models')).toBeUndefined();
  });
});
