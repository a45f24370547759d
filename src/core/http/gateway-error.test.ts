/** Gateway refusals are OpenAI-shaped with the status docs/design.md D19 gives them. */
import { describe, expect, it } from 'vitest';

import { errorBody, errorHeaders, GatewayError } from './gateway-error.ts';

describe('GatewayError', () => {
  it('writes {"error": {message, type, code}}', () => {
    expect(
      JSON.parse(errorBody(new GatewayError(404, 'gone', { code: 'model_not_found' }))),
    ).toEqual({
      error: { message: 'gone', type: 'invalid_request_error', code: 'model_not_found' },
    });
    expect(JSON.parse(errorBody(new GatewayError(502, 'broke')))).toEqual({
      error: { message: 'broke', type: 'server_error', code: 'upstream_error' },
    });
  });

  it('asks for Bearer on a 401 and sets Retry-After only where it is given', () => {
    expect(errorHeaders(new GatewayError(401, 'no'))).toEqual({ 'www-authenticate': 'Bearer' });
    expect(errorBody(new GatewayError(401, 'no'))).toContain('"code":"invalid_api_key"');
    expect(errorHeaders(new GatewayError(404, 'x', { code: 'model_not_found' }))).toEqual({});
    expect(errorHeaders(new GatewayError(504, 'slow', { retryAfterSeconds: 30 }))).toEqual({
      'retry-after': '30',
    });
  });
});
