/**
 * A gateway refusal: an HTTP status, a message that names the node (spec §4.2, §7) and an
 * OpenAI error `code`, sent OpenAI-shaped (docs/design.md D19) so clients built for OpenAI show it
 * and decide about retrying from the status: `{"error": {"message", "type", "code"}}`.
 */

/** The `code` of every refusal the gateway makes itself; OpenAI's own names where one exists. */
export type GatewayErrorCode =
  | 'invalid_api_key'
  | 'insufficient_permissions'
  /** docs/design.md D29: a caller's `models` leave the model out, or its `wake: off` a wake. */
  | 'model_not_allowed'
  | 'wake_not_allowed'
  | 'invalid_request_error'
  | 'model_not_found'
  | 'node_busy'
  | 'unknown_url'
  | 'request_too_large'
  | 'upstream_error'
  | 'loopback_only'
  | 'wake_failed'
  | 'wake_timeout'
  | 'queue_full'
  | 'queue_timeout'
  | 'group_busy'
  | 'reply_timeout'
  /** The gateway ended a request it held because it is shutting down (docs/design.md D33). */
  | 'shutting_down'
  /** The operator stopped, with force, the node whose reply was being relayed (docs/design.md D28). */
  | 'node_stopped'
  | 'internal_error';

export interface GatewayErrorOptions {
  readonly code?: GatewayErrorCode;
  /**
   * Seconds after which a retry may succeed; set only where retrying can help (docs/design.md D19).
   */
  readonly retryAfterSeconds?: number;
}

/** docs/design.md D29: refusals of a caller's rights are typed as OpenAI types its own. */
const PERMISSION_CODES: ReadonlySet<string> = new Set(['model_not_allowed', 'wake_not_allowed']);

/** The OpenAI error type for a status: 4xx are the caller's, 5xx the server's. */
export function errorType(status: number, code?: GatewayErrorCode): string {
  if (code !== undefined && PERMISSION_CODES.has(code)) {
    return 'permission_error';
  }
  if (status === 401) {
    return 'authentication_error';
  }
  if (status === 429) {
    // docs/design.md D25: a full queue is a rate limit, as OpenAI's own 429s are typed.
    return 'rate_limit_error';
  }
  return status >= 500 ? 'server_error' : 'invalid_request_error';
}

function defaultCode(status: number): GatewayErrorCode {
  switch (status) {
    case 401:
      return 'invalid_api_key';
    case 404:
      return 'unknown_url';
    case 413:
      return 'request_too_large';
    case 502:
      return 'upstream_error';
    case 504:
      return 'wake_timeout';
    default:
      return status >= 500 ? 'internal_error' : 'invalid_request_error';
  }
}

export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly retryAfterSeconds?: number;

  constructor(
    readonly status: number,
    message: string,
    options: GatewayErrorOptions = {},
  ) {
    super(message);
    this.name = 'GatewayError';
    this.code = options.code ?? defaultCode(status);
    if (options.retryAfterSeconds !== undefined) {
      this.retryAfterSeconds = options.retryAfterSeconds;
    }
  }
}

/** The OpenAI-shaped body of a refusal (docs/design.md D19). */
export function errorBody(error: GatewayError): string {
  return JSON.stringify({
    error: { message: error.message, type: errorType(error.status, error.code), code: error.code },
  });
}

/** The headers a refusal carries besides its JSON type (RFC 9110 §11.6.1, §10.2.3). */
export function errorHeaders(error: GatewayError): Record<string, string> {
  return {
    ...(error.status === 401 ? { 'www-authenticate': 'Bearer' } : {}),
    ...(error.retryAfterSeconds === undefined
      ? {}
      : { 'retry-after': String(error.retryAfterSeconds) }),
  };
}

/** The SSE event that ends a stream whose headers already went out: the error body as data. */
export function sseError(errorJson: string): string {
  return `data: ${errorJson}\n\n`;
}
