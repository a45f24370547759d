/**
 * What a wake touches outside the fleet's drivers: the clock, the pause between status asks, and
 * the TCP probe of an engine port. Injected into the waker (the real ones by default), so its
 * coalescing, order, fall-through and timeout have unit tests with fake time and no sockets.
 */
import { connect } from 'node:net';

import { type Clock, wallClock } from '../../core/clock.ts';

export interface WakeEdges {
  /** Milliseconds since the epoch: deadlines are handed to drivers in it (StartOptions). */
  readonly now: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  /** Whether something accepts TCP connections at `origin` within a second. */
  readonly accepts: (origin: string) => Promise<boolean>;
}

function accepts(origin: string): Promise<boolean> {
  const url = new URL(origin);
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve) => {
    const socket = connect({
      host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
      port,
      timeout: 1_000,
    });
    const done = (ok: boolean): void => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.once('timeout', () => done(false));
  });
}

export const WAKE_EDGES: WakeEdges = {
  now: wallClock,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  accepts,
};
