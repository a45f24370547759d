/**
 * What an upstream node's failure before its reply began says (docs/design.md D30), worded once for
 * both of its relays: undici's for an `https` URL (undici-relay.ts), the gateway's own engine client
 * for an `http` one (engine-client-relay.ts). Each names the node; none quotes a header, so none can
 * carry its key.
 */
import { GatewayError } from '../../core/http/gateway-error.ts';
import { EngineServerError } from '../relay/held-server-errors.ts';
import { ReplyDeadlineError } from '../relay/reply-deadline.ts';

/** An upstream node as its refusals name it. */
export interface RefusingNode {
  readonly name: string;
  readonly timeoutMs: number;
}

/** Why the request failed, in words that hold no header: the error's code, else its name. */
export function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string } }).cause;
  const code = (error as { code?: string }).code ?? cause?.code;
  return code ?? (error as Error).name;
}

/** 502: the node could not be reached, or closed the connection before answering. */
export function unreachable(node: RefusingNode, origin: string, error: unknown): GatewayError {
  return new GatewayError(
    502,
    `upstream node "${node.name}" is unreachable at ${origin}: ${causeOf(error)}`,
    { code: 'upstream_error' },
  );
}

/** 502: the node answered a 5xx (its body dropped), so a `failed` fallback may answer instead. */
export function serverFailed(node: RefusingNode, status: number): GatewayError {
  return new GatewayError(
    502,
    `upstream node "${node.name}" failed: it answered HTTP ${String(status)}`,
    { code: 'upstream_error' },
  );
}

/** 504: the node's `timeout` passed before its reply began. */
export function timedOut(node: RefusingNode): GatewayError {
  return new GatewayError(
    504,
    `upstream node "${node.name}" did not answer within its timeout (${String(node.timeoutMs)} ms)`,
    { code: 'reply_timeout' },
  );
}

/** The engine client's failure before the reply began (engine-client-relay.ts), as the node's. */
export function engineClientRefusal(
  node: RefusingNode,
  origin: string,
): (error: Error) => GatewayError {
  return (error) => {
    if (error instanceof EngineServerError) {
      return serverFailed(node, error.status);
    }
    return error instanceof ReplyDeadlineError ? timedOut(node) : unreachable(node, origin, error);
  };
}
