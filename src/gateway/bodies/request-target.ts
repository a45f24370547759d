/**
 * Which requests the gateway routes to an engine (spec §4.2 rules 2–5), pure: any
 * `POST /v1/<path>` whose JSON body names a `model` — chat/completions, completions, responses,
 * embeddings, rerank, messages, messages/count_tokens, and whatever an engine adds later — is
 * routed, woken and proxied alike; the engine answers its own 404 for a path it lacks.
 */
import type { ByteRange } from '../../core/fleet/scheduling/requests/affinity-key.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { jsonErrorPosition } from '../../core/http/json-error.ts';
import { scanModelRequest } from './body-scan.ts';

/** Paths the gateway answers itself; a POST to one of these is not a model endpoint. */
const OWN_PATHS = new Set(['/v1/models', '/v1/fleet']);

/** Whether `POST path` is a model-addressed endpoint: under /v1/, not one of the gateway's own. */
export function isModelEndpoint(method: string | undefined, path: string): boolean {
  return (
    method === 'POST' &&
    path.startsWith('/v1/') &&
    path.length > '/v1/'.length &&
    !OWN_PATHS.has(path) &&
    !path.startsWith('/v1/models/') &&
    !path.startsWith('/v1/fleet/') &&
    !path.includes('..')
  );
}

export interface ModelRequest {
  readonly model: string;
  /** `stream: true`: a streamed reply (wake progress may be sent, no reply timeout applies). */
  readonly streaming: boolean;
  /** Where the leading prompt lies in the body, for its affinity key (body-scan.ts). */
  readonly prompt?: ByteRange;
}

/**
 * The model a request body names; a body that is not JSON or names none is refused (400). One
 * scan finds the model, the stream flag and the leading prompt (body-scan.ts); a body it does
 * not settle is parsed in full, for the refusal's wording or the rare model it cannot read.
 */
export function modelRequestOf(body: Buffer): ModelRequest {
  const scanned = scanModelRequest(body);
  if (scanned !== undefined) {
    return scanned;
  }
  let parsed: unknown;
  try {
    parsed = body.length === 0 ? {} : JSON.parse(body.toString('utf8'));
  } catch (error) {
    // Never the parser's own text: it quotes the body, which may hold a key (spec §5 rule 4).
    throw new GatewayError(400, `the request is not a JSON body${jsonErrorPosition(error)}`);
  }
  const fields =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as { model?: unknown; stream?: unknown })
      : {};
  if (typeof fields.model !== 'string' || fields.model === '') {
    throw new GatewayError(
      400,
      'the request names no model: requests to a model endpoint need a "model" field',
    );
  }
  return { model: fields.model, streaming: fields.stream === true };
}
