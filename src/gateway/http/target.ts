/** A request's path, query and method as the gateway routes them, and the page file it names. */
import type { IncomingMessage } from 'node:http';

import type { PageAsset } from '../page/fleet-page.ts';

/** The request's path and method as routed: no query, and HEAD answered like GET. */
export interface Target {
  readonly path: string;
  /** The query string after `?`, empty when none. */
  readonly query: string;
  readonly method: string | undefined;
  /** One of the fleet page's files (served without the token). */
  readonly asset: PageAsset | undefined;
}

export function targetOf(page: ReadonlyMap<string, PageAsset>, request: IncomingMessage): Target {
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query < 0 ? url : url.slice(0, query);
  // HEAD answers like GET; node:http leaves the body out of a HEAD reply.
  const method = request.method === 'HEAD' ? 'GET' : request.method;
  return {
    path,
    query: query < 0 ? '' : url.slice(query + 1),
    method,
    asset: method === 'GET' ? page.get(path) : undefined,
  };
}
