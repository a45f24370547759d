import { describe, expect, it } from 'vitest';

import { redactArgs } from './redact-args.ts';

describe('redactArgs (docs/design.md D5)', () => {
  it('masks the values of secret-bearing flags and keeps everything else', () => {
    expect(
      redactArgs([
        '-hf',
        'org/m',
        '--api-key',
        'k1',
        '--hf-token',
        't1',
        '-hft',
        't2',
        '--api-key-file',
        '/state/key',
        '--some-token=t3',
        '--alias',
        'a',
      ]),
    ).toEqual([
      '-hf',
      'org/m',
      '--api-key',
      '***',
      '--hf-token',
      '***',
      '-hft',
      '***',
      '--api-key-file',
      '/state/key',
      '--some-token=***',
      '--alias',
      'a',
    ]);
  });
});
