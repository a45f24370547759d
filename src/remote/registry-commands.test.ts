import { describe, expect, it } from 'vitest';

import { entryFromFlags } from './registry-commands.ts';

describe('entryFromFlags', () => {
  it('maps the flags to the original registry keys', () => {
    expect(
      entryFromFlags('gpu-a', {
        'start-url': 'https://a.lambda-url.eu-west-1.on.aws/',
        'stop-url': 'https://b.lambda-url.eu-west-1.on.aws/',
        'update-url': 'https://c.lambda-url.eu-west-1.on.aws/',
        environment: 'prod-a',
      }),
    ).toEqual({
      start_url: 'https://a.lambda-url.eu-west-1.on.aws/',
      stop_url: 'https://b.lambda-url.eu-west-1.on.aws/',
      update_url: 'https://c.lambda-url.eu-west-1.on.aws/',
      environment: 'prod-a',
    });
  });

  it('names a missing or malformed flag', () => {
    expect(() => entryFromFlags('gpu-a', { 'start-url': 'https://a/' })).toThrow(
      'svc remote add gpu-a needs --stop-url <url>',
    );
    expect(() =>
      entryFromFlags('gpu-a', {
        'start-url': 'https://a/',
        'stop-url': 'https://b/',
        'env-url': 'nope',
      }),
    ).toThrow('--env-url: "nope" is not a URL');
  });
});
