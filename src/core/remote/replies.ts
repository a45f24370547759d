/**
 * The control plane's replies (docs/remote.md), checked and mapped,
 * pure: a status reply becomes the spec's StatusResponse shape (spec §2.1) with the control
 * plane's own state vocabulary kept, a stats reply the Stats shape (spec §2.4). Only fields the
 * records define are kept: the status reply's `api_key` (a secret) never leaves this module.
 */
import type { EngineEndpoint, Stats } from '../contract/schemas.ts';

/** A status as the spec's StatusResponse, with the control plane's state word untranslated. */
export interface RemoteStatus {
  readonly state: string;
  readonly runner?: string;
  readonly model?: string;
  readonly servedName?: string;
  readonly lastActiveAt?: string;
  readonly idleSeconds?: number;
  readonly ready?: 'ready' | 'not-ready';
  readonly engine?: EngineEndpoint;
  readonly retainUntil?: string;
  readonly version?: string;
}

export type RemoteStats = Omit<Stats, 'state'> & {
  readonly state: string;
  readonly environment?: string;
  readonly instanceId?: string;
  readonly instanceType?: string;
  readonly version?: string;
};

type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

function date(value: unknown): string | undefined {
  return typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? value : undefined;
}

/** spec §2.4: a retention deadline is reported only while it is in the future. */
export function futureOnly(value: unknown, now: number): string | undefined {
  const when = date(value);
  return when !== undefined && Date.parse(when) > now ? when : undefined;
}

/** The engine address the environment publishes (`base_url`), as the spec's EngineEndpoint. */
export function engineOf(baseUrl: unknown): EngineEndpoint | undefined {
  const raw = text(baseUrl);
  if (raw === undefined) {
    return undefined;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return undefined;
  }
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const path = url.pathname.replace(/\/+$/, '');
  return {
    // An https engine keeps its scheme: the gateway uses a host with one as the origin.
    host: url.protocol === 'https:' ? url.origin : url.hostname,
    port,
    ...(path === '' || path === '/v1' ? {} : { path }),
    // A remote engine is always gated: its key comes from engineTokenEnv or apiKeyEnv (spec §4.2).
    requiresKey: true,
  };
}

export function problemOf(reply: unknown): string | undefined {
  if (!isObject(reply)) {
    return undefined;
  }
  const message = text(reply['error']) ?? text(reply['message']);
  // Bounded: a control plane's message is quoted in errors, never a page of it.
  return message === undefined ? undefined : message.slice(0, 500);
}

export function statusOf(reply: unknown, now: number): RemoteStatus {
  if (!isObject(reply) || text(reply['state']) === undefined) {
    throw new Error('the status reply has no state');
  }
  const state = reply['state'] as string;
  const running = state === 'running' || state === 'ready';
  const healthy = reply['healthy'];
  const engine = running ? engineOf(reply['base_url']) : undefined;
  const values = {
    runner: text(reply['runner']),
    model: text(reply['modelId']),
    servedName: text(reply['servedName']),
    lastActiveAt: date(reply['lastActiveAt']),
    idleSeconds: count(reply['idleSeconds']),
    retainUntil: futureOnly(reply['retainUntil'], now),
    version: text(reply['version']),
  };
  return {
    // A booted instance answers `ready` to a start; its status says `running`: one word for both.
    state: state === 'ready' ? 'running' : state,
    ...Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)),
    ...(running && typeof healthy === 'boolean'
      ? { ready: healthy ? ('ready' as const) : ('not-ready' as const) }
      : {}),
    ...(engine === undefined ? {} : { engine }),
  };
}

const STATS_PASSTHROUGH = ['tokens', 'gpus', 'cpu', 'memory', 'history', 'errors'] as const;

export function statsOf(reply: unknown, now: number): RemoteStats {
  if (!isObject(reply) || text(reply['state']) === undefined) {
    throw new Error('the stats reply has no state');
  }
  const values: Record<string, unknown> = {
    state: reply['state'],
    environment: text(reply['environment']),
    instanceId: text(reply['instanceId']),
    instanceType: text(reply['instanceType']),
    runner: text(reply['runner']),
    modelId: text(reply['modelId']),
    servedName: text(reply['servedName']),
    uptimeSeconds: count(reply['uptimeSeconds']),
    lastActiveAt: date(reply['lastActiveAt']),
    idleSeconds: count(reply['idleSeconds']),
    retainUntil: futureOnly(reply['retainUntil'], now),
    version: text(reply['version']),
  };
  for (const key of STATS_PASSTHROUGH) {
    const value = reply[key];
    if (
      key === 'tokens' || key === 'cpu' || key === 'memory' ? isObject(value) : Array.isArray(value)
    ) {
      values[key] = value;
    }
  }
  return Object.fromEntries(
    Object.entries(values).filter(([, value]) => value !== undefined),
  ) as RemoteStats;
}
