/** Which requests are model requests (spec §4.2 rules 2–5), and the model they name. */
import { describe, expect, it } from 'vitest';

import type { GatewayError } from '../../core/http/gateway-error.ts';
import { isModelEndpoint, modelRequestOf } from './request-target.ts';

describe('isModelEndpoint', () => {
  it.each([
    ['GET', '/v1/chat/completions'],
    ['POST', '/v1/models'],
    ['POST', '/v1/models/x'],
    ['POST', '/v1/fleet'],
    ['POST', '/v1/'],
    ['POST', '/health'],
    ['POST', '/v1/../admin'],
  ])('does not route %s %s', (method, path) => {
    expect(isModelEndpoint(method, path)).toBe(false);
  });
});

describe('modelRequestOf', () => {
  it('reads the model and whether the reply is streamed', () => {
    expect(modelRequestOf(Buffer.from('{"model":"m","stream":true}'))).toEqual({
      model: 'm',
      streaming: true,
    });
    expect(modelRequestOf(Buffer.from('{"model":"m","stream":"yes"}')).streaming).toBe(false);
  });

  it.each(['', '{}', '{"model":""}', '{"model":3}', '[{"model":"m"}]'])(
    'refuses %j with 400 naming the model field',
    (text) => {
      const error = (() => {
        try {
          modelRequestOf(Buffer.from(text));
        } catch (caught) {
          return caught as GatewayError;
        }
        throw new Error('accepted');
      })();
      expect(error.status).toBe(400);
      expect(error.code).toBe('invalid_request_error');
      expect(error.message).toContain('"model" field');
    },
  );

  it('never quotes the body of a malformed request', () => {
    expect(() => modelRequestOf(Buffer.from('{"model":"m", "key": sk-abc}'))).toThrow(
      /^the request is not a JSON body( at position \d+)?$/,
    );
  });
});
