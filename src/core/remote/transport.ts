/**
 * One signed HTTP call to a control plane: signed by `signer`, bounded by a timeout, the reply
 * capped at 1 MiB (docs/remote.md, "The control-plane protocol"). A connection the server dropped
 * is told apart from other failures, because a boot retries it (control-plane.ts).
 */
import { request } from 'undici';

import type { Signer } from './signer.ts';

export const MAX_REPLY_BYTES = 1024 * 1024;

export interface CallInput {
  readonly method: 'GET' | 'POST';
  readonly url: URL;
  readonly body?: string;
  readonly timeoutMs: number;
}

export interface CallReply {
  readonly status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  readonly json: unknown;
}

export type Transport = (input: CallInput) => Promise<CallReply>;

/** The server closed the connection before answering (a restarting function, a dropped socket). */
export class DroppedConnectionError extends Error {
  constructor(cause: Error) {
    super(`the connection was dropped (${cause.message})`);
    this.name = 'DroppedConnectionError';
  }
}

const DROPPED = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE', 'UND_ERR_CLOSED']);

function isDropped(error: unknown): boolean {
  const code = (error as { code?: string }).code;
  const cause = (error as { cause?: { code?: string } }).cause?.code;
  return (code !== undefined && DROPPED.has(code)) || (cause !== undefined && DROPPED.has(cause));
}

export function signedTransport(signer: Signer): Transport {
  return async ({ method, url, body, timeoutMs }) => {
    const headers = await signer({ method, url, ...(body === undefined ? {} : { body }) });
    let reply;
    try {
      reply = await request(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      if (isDropped(error)) {
        throw new DroppedConnectionError(error as Error);
      }
      throw error;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of reply.body) {
        size += (chunk as Buffer).length;
        if (size > MAX_REPLY_BYTES) {
          reply.body.destroy();
          throw new Error(`the reply is larger than ${MAX_REPLY_BYTES} bytes`);
        }
        chunks.push(chunk as Buffer);
      }
    } catch (error) {
      if (isDropped(error)) {
        throw new DroppedConnectionError(error as Error);
      }
      throw error;
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      json = undefined;
    }
    return { status: reply.statusCode, json };
  };
}
