/**
 * One log line per API request (spec §1.6): method, path with query, status, duration, bytes
 * returned, remote address. The level follows the status; headers and bodies are never logged,
 * so neither the bearer token nor a pushed config's serve args can appear.
 */
import type { Logger, LogLevel } from '../logger.ts';

export interface RequestSummary {
  readonly method: string;
  readonly path: string;
  readonly status: number;
  readonly durationMs: number;
  readonly bytes: number;
  readonly remote: string;
  /** Gateway requests: the model the body named and the node that served (or was woken for) it. */
  readonly model?: string;
  readonly node?: string;
  /** `aborted` when the caller left before the reply was complete (its status is what was sent). */
  readonly outcome?: 'aborted';
}

/** spec §1.6 table: 2xx/3xx debug, 4xx warn, 5xx error. */
export function levelForStatus(status: number): LogLevel {
  if (status >= 500) {
    return 'error';
  }
  return status >= 400 ? 'warn' : 'debug';
}

export function logRequest(logger: Logger, summary: RequestSummary): void {
  const level = levelForStatus(summary.status);
  // An aborted request is shown at the default level: a 200 that never finished is not routine.
  const shown = summary.outcome === 'aborted' && level === 'debug' ? 'info' : level;
  logger[shown]('api request', {
    method: summary.method,
    path: summary.path,
    status: summary.status,
    duration: `${summary.durationMs.toFixed(1)}ms`,
    bytes: summary.bytes,
    remote: summary.remote,
    ...(summary.model === undefined ? {} : { model: summary.model }),
    ...(summary.node === undefined ? {} : { node: summary.node }),
    ...(summary.outcome === undefined ? {} : { outcome: summary.outcome }),
  });
}
