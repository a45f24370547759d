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
  /** docs/design.md D29: the caller's name from the fleet file, `gateway` or `operator`. */
  readonly caller?: string;
  /**
   * `aborted` when the caller left before the reply was complete (its status is what was sent);
   * `stopped` when the gateway ended it, and told the caller why (shutting down).
   */
  readonly outcome?: 'aborted' | 'stopped';
}

/** spec §1.6 table: 2xx/3xx debug, 4xx warn, 5xx error. */
export function levelForStatus(status: number): LogLevel {
  if (status >= 500) {
    return 'error';
  }
  return status >= 400 ? 'warn' : 'debug';
}

/** The level a request's line is written at; an aborted one is shown at the default level. */
export function requestLogLevel(status: number, aborted: boolean): LogLevel {
  const level = levelForStatus(status);
  // A 200 that never finished is not routine.
  return aborted && level === 'debug' ? 'info' : level;
}

/**
 * Whether a request's line would be written at all: a busy caller checks this first and builds
 * no summary for a line the level hides (the gateway's hot path at the default level).
 */
export function requestLogged(logger: Logger, status: number, aborted: boolean): boolean {
  return logger.enabled(requestLogLevel(status, aborted));
}

export function logRequest(logger: Logger, summary: RequestSummary): void {
  const shown = requestLogLevel(summary.status, summary.outcome !== undefined);
  logger[shown]('api request', {
    method: summary.method,
    path: summary.path,
    status: summary.status,
    duration: `${summary.durationMs.toFixed(1)}ms`,
    bytes: summary.bytes,
    remote: summary.remote,
    ...(summary.model === undefined ? {} : { model: summary.model }),
    ...(summary.node === undefined ? {} : { node: summary.node }),
    ...(summary.caller === undefined ? {} : { caller: summary.caller }),
    ...(summary.outcome === undefined ? {} : { outcome: summary.outcome }),
  });
}
