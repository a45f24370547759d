/**
 * The control-plane protocol of a remote environment (docs/remote.md): status, start (a blocking
 * boot), stop, pause, stats, keep, env and deploy, each a signed call carrying
 * `?env=<environment>`. The transport, clock and sleep are injected, so the retry rules have fast
 * unit tests.
 */
import type { Clock } from '../clock.ts';
import type { DeployConfig } from '../contract/schemas.ts';
import type { Remote, UrlKey } from './registry.ts';
import {
  isObject,
  problemOf,
  type RemoteStats,
  type RemoteStatus,
  statsOf,
  statusOf,
} from './replies.ts';
import { MissingCredentialsError } from './signer.ts';
import { type CallReply, DroppedConnectionError, type Transport } from './transport.ts';

/** A failed call: names the environment, the call and the HTTP status; never a secret. */
export class RemoteCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    /** The deadline passed while a boot was still under way. */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'RemoteCallError';
  }
}

export interface ControlPlaneDeps {
  readonly transport: Transport;
  readonly now: Clock;
  readonly sleep: (ms: number) => Promise<void>;
}

/** One call's bound when the caller gives no deadline (the original's client timeout). */
const CALL_TIMEOUT_MS = 10 * 60_000;
const STATUS_TIMEOUT_MS = 30_000;
/** A dropped connection during a boot is retried after this long. */
export const DROPPED_RETRY_MS = 5_000;

export interface StartOptions {
  readonly deadline?: number;
  /** A retention deadline to set with the boot (`start --keep`). */
  readonly retainUntil?: string;
}

function hint403(remote: Remote, url: URL): string {
  return `the control plane refused the request's signature or permission: check that AWS credentials are available (AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, AWS_PROFILE, or an SSO session that has not expired: aws sso login) and that they allow lambda:InvokeFunctionUrl on the function at ${url.host} in ${remote.region}`;
}

export class ControlPlane {
  constructor(
    readonly remote: Remote,
    private readonly deps: ControlPlaneDeps,
  ) {}

  private url(key: UrlKey, query: Record<string, string> = {}): URL {
    const base = this.remote.urls[key];
    if (base === undefined) {
      throw new RemoteCallError(
        `remote environment "${this.remote.name}" has no ${key} configured: add it with svc remote add ${this.remote.name} --${key.replace('_', '-')} <url>`,
      );
    }
    const url = new URL(base);
    url.searchParams.set('env', this.remote.environment);
    for (const [name, value] of Object.entries(query)) {
      url.searchParams.set(name, value);
    }
    return url;
  }

  private async call(
    what: string,
    method: 'GET' | 'POST',
    url: URL,
    timeoutMs: number,
    body?: unknown,
  ): Promise<CallReply> {
    try {
      return await this.deps.transport({
        method,
        url,
        timeoutMs,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      if (error instanceof DroppedConnectionError) {
        throw error;
      }
      const reason =
        error instanceof MissingCredentialsError
          ? error.message
          : `${url.origin}${url.pathname}: ${(error as Error).message}`;
      throw new RemoteCallError(
        `${what} of remote environment "${this.remote.name}" failed: ${reason}`,
      );
    }
  }

  private refused(what: string, url: URL, reply: CallReply): RemoteCallError {
    const detail = problemOf(reply.json);
    const hint = reply.status === 403 ? `; ${hint403(this.remote, url)}` : '';
    return new RemoteCallError(
      `${what} of remote environment "${this.remote.name}" returned HTTP ${reply.status}${detail === undefined ? '' : `: ${detail}`}${hint}`,
      reply.status,
    );
  }

  private async json(
    what: string,
    method: 'GET' | 'POST',
    key: UrlKey,
    query: Record<string, string> = {},
    body?: unknown,
    timeoutMs = STATUS_TIMEOUT_MS,
  ): Promise<unknown> {
    const url = this.url(key, query);
    let reply: CallReply;
    try {
      reply = await this.call(what, method, url, timeoutMs, body);
    } catch (error) {
      if (error instanceof DroppedConnectionError) {
        throw new RemoteCallError(
          `${what} of remote environment "${this.remote.name}" failed: ${error.message}`,
        );
      }
      throw error;
    }
    if (reply.status !== 200) {
      throw this.refused(what, url, reply);
    }
    return reply.json;
  }

  async status(timeoutMs = STATUS_TIMEOUT_MS): Promise<RemoteStatus> {
    const reply = await this.json('status', 'GET', 'start_url', {}, undefined, timeoutMs);
    return this.checked('status', () => statusOf(reply, this.deps.now()));
  }

  async stats(): Promise<RemoteStats> {
    const reply = await this.json('stats', 'GET', 'stats_url');
    return this.checked('stats', () => statsOf(reply, this.deps.now()));
  }

  /**
   * Boots the environment as deployed and resolves once the control plane answers `ready`. A 503
   * waits `retry_after_seconds` (at least 1 s) and asks again; a dropped connection asks again
   * after 5 s; both until `deadline`. Retrying is idempotent on the control plane's side.
   */
  async start(options: StartOptions = {}): Promise<RemoteStatus> {
    const { now, sleep } = this.deps;
    const deadline = options.deadline ?? now() + CALL_TIMEOUT_MS;
    const url = this.url(
      'start_url',
      options.retainUntil === undefined ? {} : { retainUntil: options.retainUntil },
    );
    for (;;) {
      const left = deadline - now();
      if (left <= 0) {
        throw new RemoteCallError(
          `remote environment "${this.remote.name}" did not finish booting before the deadline`,
          undefined,
          true,
        );
      }
      let waitMs: number;
      try {
        const reply = await this.call('start', 'POST', url, Math.min(left, CALL_TIMEOUT_MS));
        if (reply.status === 200) {
          return this.checked('start', () => statusOf(reply.json, now()));
        }
        if (reply.status !== 503) {
          const state =
            isObject(reply.json) && typeof reply.json['state'] === 'string'
              ? reply.json['state']
              : '';
          const detail = problemOf(reply.json);
          throw new RemoteCallError(
            `start of remote environment "${this.remote.name}" failed (HTTP ${reply.status}, state "${state}")${detail === undefined ? '' : `: ${detail}`}${reply.status === 403 ? `; ${hint403(this.remote, url)}` : ''}`,
            reply.status,
          );
        }
        const after = isObject(reply.json) ? reply.json['retry_after_seconds'] : undefined;
        waitMs =
          1000 * Math.max(1, typeof after === 'number' && Number.isFinite(after) ? after : 1);
      } catch (error) {
        if (!(error instanceof DroppedConnectionError)) {
          throw error;
        }
        waitMs = DROPPED_RETRY_MS;
      }
      await sleep(Math.max(0, Math.min(waitMs, deadline - now())));
    }
  }

  async stop(): Promise<unknown> {
    return this.json('stop', 'POST', 'stop_url', {}, undefined, CALL_TIMEOUT_MS);
  }

  async pause(force = false): Promise<unknown> {
    return this.json(
      'pause',
      'POST',
      'stop_url',
      { action: 'pause', ...(force ? { force: 'true' } : {}) },
      undefined,
      CALL_TIMEOUT_MS,
    );
  }

  /** Sets the retention deadline (`Retain-Until`): the idle sweep will not stop it before. */
  async keep(until: Date): Promise<unknown> {
    if (this.remote.urls.update_url === undefined) {
      throw new RemoteCallError(
        `no update_url configured for remote environment "${this.remote.name}": the remote deployment needs to be updated for keep support`,
      );
    }
    return this.json('keep', 'POST', 'update_url', {
      cmd: 'set-keep',
      retainUntil: until.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    });
  }

  /** The published engine address without starting anything (the key is dropped here). */
  async env(): Promise<{ baseUrl?: string }> {
    const reply = await this.json('env', 'GET', 'env_url');
    return isObject(reply) && typeof reply['base_url'] === 'string'
      ? { baseUrl: reply['base_url'] }
      : {};
  }

  /** Creates or updates the environment's deployment from `config` (spec §2.7). */
  async deploy(config: DeployConfig): Promise<unknown> {
    return this.json('deploy', 'POST', 'deploy_url', {}, config, CALL_TIMEOUT_MS);
  }

  private checked<T>(what: string, map: () => T): T {
    try {
      return map();
    } catch (error) {
      throw new RemoteCallError(
        `${what} of remote environment "${this.remote.name}" answered something unexpected: ${(error as Error).message}`,
      );
    }
  }
}
