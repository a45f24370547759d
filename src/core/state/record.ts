/**
 * The one record status and metrics answer from (spec §3: "Status and metrics answer from one
 * record and keep answering after a stop"). The supervisor writes the engine's state into it;
 * readers take snapshots. Pure: every method that needs the time takes `now`.
 */
import type { EngineEndpoint, EngineState, Stats, StatusResponse } from '../contract/schemas.ts';

export interface EngineRun {
  readonly runner: string;
  readonly model?: string;
  readonly servedName?: string;
  readonly startedAt: Date;
  readonly endpoint: EngineEndpoint;
  readonly logPath?: string;
}

export interface RecordSnapshot {
  readonly state: EngineState;
  readonly run?: EngineRun;
  readonly lastActiveAt?: Date;
  readonly ready?: 'ready' | 'not-ready';
}

export class StateRecord {
  private current: RecordSnapshot = { state: 'idle' };

  snapshot(): RecordSnapshot {
    return this.current;
  }

  /** spec §3: a start is activity, so lastActiveAt moves forward to the start time. */
  started(run: EngineRun): void {
    this.current = { state: 'running', run, lastActiveAt: run.startedAt };
  }

  /** Stopped on request or crashed; the last run stays for status, readiness goes. */
  ended(state: 'stopped' | 'crashed'): void {
    const { ready: _ready, ...rest } = this.current;
    this.current = { ...rest, state };
  }

  setReady(ready: 'ready' | 'not-ready' | undefined): void {
    if (this.current.state !== 'running') {
      return;
    }
    const { ready: _previous, ...rest } = this.current;
    this.current = ready === undefined ? rest : { ...rest, ready };
  }

  /** Activity seen by the sampler (spec §3 activity rules). */
  active(at: Date): void {
    if (this.current.lastActiveAt === undefined || at > this.current.lastActiveAt) {
      this.current = { ...this.current, lastActiveAt: at };
    }
  }
}

function activity(
  snapshot: RecordSnapshot,
  now: Date,
): { lastActiveAt?: string; idleSeconds?: number } {
  if (snapshot.lastActiveAt === undefined) {
    return {};
  }
  const idle = Math.max(0, Math.floor((now.getTime() - snapshot.lastActiveAt.getTime()) / 1000));
  // spec §2.4: idleSeconds is absent at zero.
  return {
    lastActiveAt: snapshot.lastActiveAt.toISOString(),
    ...(idle > 0 ? { idleSeconds: idle } : {}),
  };
}

function uptime(snapshot: RecordSnapshot, now: Date): number {
  if (snapshot.state !== 'running' || snapshot.run === undefined) {
    return 0;
  }
  return Math.max(0, Math.floor((now.getTime() - snapshot.run.startedAt.getTime()) / 1000));
}

/** spec §2.1 StatusResponse. */
export function statusOf(snapshot: RecordSnapshot, now: Date, version: string): StatusResponse {
  const run = snapshot.run;
  const running = snapshot.state === 'running';
  return {
    state: snapshot.state,
    ...(run === undefined ? {} : { runner: run.runner }),
    ...(run?.model === undefined ? {} : { model: run.model }),
    ...(run?.servedName === undefined ? {} : { servedName: run.servedName }),
    ...(run === undefined ? {} : { uptimeSeconds: uptime(snapshot, now) }),
    ...(run?.logPath === undefined ? {} : { logPath: run.logPath }),
    ...activity(snapshot, now),
    ...(running && run !== undefined ? { engine: run.endpoint } : {}),
    ...(running && snapshot.ready !== undefined ? { ready: snapshot.ready } : {}),
    version,
  };
}

/** spec §2.4 Stats: the record's part; the telemetry sampler adds readings. */
export function statsOf(snapshot: RecordSnapshot, now: Date): Stats {
  const run = snapshot.run;
  const running = snapshot.state === 'running';
  return {
    state: snapshot.state,
    ...(run === undefined ? {} : { runner: run.runner }),
    ...(run?.model === undefined ? {} : { modelId: run.model }),
    ...(run?.servedName === undefined ? {} : { servedName: run.servedName }),
    ...(run === undefined ? {} : { uptimeSeconds: uptime(snapshot, now) }),
    ...activity(snapshot, now),
    ...(running && snapshot.ready !== undefined ? { ready: snapshot.ready } : {}),
  };
}
