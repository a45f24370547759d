/**
 * CORS for browser clients (docs/design.md D22), pure: preflights are answered without the token,
 * and every reply to a request carrying `Origin` says which origin may read it. Any origin is
 * allowed by default (the token is a bearer header, never an ambient cookie, so a page cannot
 * borrow it); the fleet file's `gateway.cors` list restricts them.
 */

/** Headers browsers may not read unless named: where the request went and how long it took. */
const EXPOSED = 'x-svc-node, server-timing, retry-after';
/** What the OpenAI and Anthropic SDKs send from a browser besides the CORS-safelisted ones. */
const ALLOWED_HEADERS = 'authorization, content-type, accept, openai-organization, openai-project';
/** Chromium caps a preflight cache at 2 hours; a longer value would only be ignored. */
const MAX_AGE_SECONDS = 7200;

export type CorsPolicy = readonly string[] | undefined;

/** The `Access-Control-Allow-Origin` value for `origin`, or undefined when it is not allowed. */
export function allowedOrigin(origin: string | undefined, policy: CorsPolicy): string | undefined {
  if (origin === undefined) {
    return undefined;
  }
  if (policy === undefined || policy.includes('*')) {
    return '*';
  }
  return policy.includes(origin) ? origin : undefined;
}

/** Headers every gateway-made reply to a request carrying `Origin` gets. */
export function corsHeaders(
  origin: string | undefined,
  policy: CorsPolicy,
): Record<string, string> {
  const allowed = allowedOrigin(origin, policy);
  if (allowed === undefined) {
    return {};
  }
  return {
    'access-control-allow-origin': allowed,
    'access-control-expose-headers': EXPOSED,
    // A reply that depends on the origin must not be served from a cache to another one.
    ...(allowed === '*' ? {} : { vary: 'Origin' }),
  };
}

/** The 204 preflight reply's headers: the requested headers are allowed along with the usual. */
export function preflightHeaders(
  origin: string | undefined,
  requestedHeaders: string | undefined,
  policy: CorsPolicy,
): Record<string, string> {
  // A preflight without Origin (curl, a health probe) is answered as if from any origin.
  const base = corsHeaders(origin ?? '*', policy);
  if (base['access-control-allow-origin'] === undefined) {
    return {};
  }
  const requested = (requestedHeaders ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const allowed = [...new Set([...ALLOWED_HEADERS.split(', '), ...requested])].join(', ');
  return {
    ...base,
    'access-control-allow-methods': 'GET, HEAD, POST, OPTIONS',
    'access-control-allow-headers': allowed,
    'access-control-max-age': String(MAX_AGE_SECONDS),
  };
}

/** The fleet file's `gateway.cors`: a list of origins (`https://app.example`, or `*` for any). */
export function corsOrigins(
  raw: unknown,
  problem: (message: string) => void,
): string[] | undefined {
  const origins = Array.isArray(raw) ? (raw as unknown[]) : undefined;
  const bad = origins?.find(
    (origin) =>
      typeof origin !== 'string' || (origin !== '*' && !/^https?:\/\/[^/]+$/.test(origin)),
  );
  if (origins === undefined || bad !== undefined) {
    problem(
      `gateway.cors must list origins such as "https://app.example" (scheme and host, no path) or "*"${bad === undefined ? '' : `, not ${JSON.stringify(bad)}`}`,
    );
    return undefined;
  }
  return origins as string[];
}
