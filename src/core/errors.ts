/**
 * The one catalog of failures svc reports. Each code is either a user error (the input was wrong:
 * a flag, a file, an environment variable; fixing the input fixes it) or a system error (the
 * machine or a program we drive failed). src/cli.ts turns the kind into the exit code, prints a
 * user error's message alone, and adds the stack of a system error at debug level.
 *
 * Messages name the field, flag, file or line at fault and never carry a secret value: a token or
 * an engine key is referred to by where it came from, never by what it is.
 */

export type ErrorKind = 'user' | 'system';

export const ERROR_CATALOG = {
  /** Unknown command or flag, a missing or extra argument. */
  ERR_USAGE: 'user',
  /** A listen address that does not parse (`--api-addr`, `--listen`). */
  ERR_LISTEN_ADDRESS: 'user',
  /** A non-loopback listen with no API token configured (spec §5 rule 3). */
  ERR_NO_TOKEN_NON_LOOPBACK: 'user',
  /** Two API token sources given at once (spec §5 rule 2). */
  ERR_TWO_TOKEN_SOURCES: 'user',
  /** The `--api-token-file` cannot be read or holds nothing. */
  ERR_TOKEN_FILE: 'user',
  /** A token value that cannot travel in an Authorization header (empty, blank, control chars). */
  ERR_TOKEN_INVALID: 'user',
  /** `--log-level` or `SVC_LOG_LEVEL` names no level. */
  ERR_LOG_LEVEL: 'user',
  /** A Svcfile or preset that does not parse or resolve; the message lists every problem. */
  ERR_PROJECT: 'user',
  /** No Svcfile where the target points (file, directory, alias, SVC_ALIAS). */
  ERR_PROJECT_NOT_FOUND: 'user',
  /** A PROVIDER `serve` cannot run (spec §1.2, §7). */
  ERR_PROVIDER_UNSUPPORTED: 'user',
  /** Several preset sections and no ALIAS to choose one (spec §1.4, §7). */
  ERR_PRESET_SECTION_AMBIGUOUS: 'user',
  /** A Svcfile or preset URL that could not be fetched (404, too large, timeout). */
  ERR_FETCH: 'user',
  /** An alias registry problem: unknown name, re-pointing without --force, bad name. */
  ERR_ALIAS: 'user',
  /** A deploy config the daemon cannot turn into an engine command (spec §2.7). */
  ERR_DEPLOY_CONFIG: 'user',
  /** What the engine command needs is not on this host: its binary, or the model file it names. */
  ERR_ENGINE_UNAVAILABLE: 'user',
  /**
   * The engine process could not be spawned, or exited during start-up (the daemon's 400; `serve`
   * exits with the engine's own status instead). A run that failed, not input to fix.
   */
  ERR_ENGINE_START_FAILED: 'system',
  /** A start while an engine runs (spec §3: 409). */
  ERR_ENGINE_RUNNING: 'user',
  /** A start with no body and no stored config (spec §4.1 rule 1). */
  ERR_NOTHING_TO_SERVE: 'user',
  /** The engine did not exit even after SIGKILL (spec §4.1: 500). */
  ERR_ENGINE_STUCK: 'system',
  /** A fleet file that is missing, does not parse, or names a variable set nowhere. */
  ERR_FLEET: 'user',
  /**
   * `svc import`: a configuration that cannot be read or translated (the message names the line
   * and field), or files the import would overwrite without --force.
   */
  ERR_IMPORT: 'user',
  /** `svc code`: the agent's program is not on PATH. */
  ERR_AGENT_MISSING: 'user',
  /** A gateway or node svc asked for something did not answer as the contract says. */
  ERR_UPSTREAM: 'system',
  /** The alias registry or another state file could not be written. */
  ERR_STATE_WRITE: 'system',
  /** The listen socket could not be opened (address in use, permission denied). */
  ERR_LISTEN_FAILED: 'system',
  /** Another live gateway runs this fleet file's local nodes (docs/design.md D27). */
  ERR_FLEET_IN_USE: 'system',
  /** A bug: something svc did not expect. */
  ERR_INTERNAL: 'system',
} as const satisfies Record<string, ErrorKind>;

export type ErrorCode = keyof typeof ERROR_CATALOG;

/** Exit status per kind: 2 when the input must change, 1 when the run failed. */
export const EXIT_CODES: Readonly<Record<ErrorKind, number>> = { user: 2, system: 1 };

export class SvcError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SvcError';
    this.code = code;
  }

  get kind(): ErrorKind {
    return ERROR_CATALOG[this.code];
  }

  get exitCode(): number {
    return EXIT_CODES[this.kind];
  }
}

/** Wraps anything thrown into an SvcError so callers can rely on `code` and `kind`. */
export function toSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) {
    return error;
  }
  const message = error instanceof Error ? error.message : String(error);
  return new SvcError('ERR_INTERNAL', `unexpected failure: ${message}`, { cause: error });
}
