/**
 * The gateway under a long run of streamed requests whose callers often hang up: 10,000 streamed
 * completions through the gateway to the real llama-server, one in five abandoned after its first
 * bytes (half with a TCP reset, half with a plain FIN). Nothing may leak: the gateway's descriptors
 * and sockets return to what they were after the warm-up, and its RSS grows less than 10%.
 */
import { connect, type Socket } from 'node:net';
import { loadavg } from 'node:os';

import { startBenchPaths } from './gateway-paths.ts';
import { descriptors, memoryMiB } from './proc-stats.ts';

export interface SoakFigures {
  requests: number;
  completed: number;
  reset: number;
  finished: number;
  failed: number;
  concurrency: number;
  seconds: number;
  before: { fds: number; sockets: number; rss: number };
  after: { fds: number; sockets: number; rss: number };
  /** RSS (MiB) after each fifth of the run. */
  checkpoints: number[];
  /** RSS (MiB) at the start and after each warm-up round of WARM_UP_ROUND requests. */
  warmUp: { round: number; rss: number[] };
  load: [number, number];
}

const BODY = JSON.stringify({
  model: 'tiny',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 8,
  stream: true,
});

type Ending = 'complete' | 'reset' | 'fin';

/** Which requests hang up: every fifth, alternating reset and FIN (fixed, not random). */
export function endingOf(index: number): Ending {
  if (index % 5 !== 4) {
    return 'complete';
  }
  return (index / 5) % 2 < 1 ? 'reset' : 'fin';
}

/** One streamed request on its own connection; resolves with how it ended. */
function streamOnce(port: number, ending: Ending): Promise<'ok' | 'hung-up' | 'failed'> {
  return new Promise((resolve) => {
    const socket: Socket = connect(port, '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1');
    socket.once('connect', () => {
      socket.write(
        `POST /v1/chat/completions HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\n` +
          `connection: close\r\ncontent-length: ${Buffer.byteLength(BODY)}\r\n\r\n${BODY}`,
      );
    });
    socket.on('data', (chunk: string) => {
      received += chunk;
      if (ending !== 'complete' && received.includes('data: ')) {
        if (ending === 'reset') {
          socket.resetAndDestroy();
        } else {
          socket.end();
          socket.destroy();
        }
        resolve('hung-up');
      }
    });
    socket.once('error', () => resolve('failed'));
    socket.once('close', () => {
      resolve(
        received.startsWith('HTTP/1.1 200') && received.endsWith('0\r\n\r\n') ? 'ok' : 'failed',
      );
    });
  });
}

const WARM_UP_ROUND = 1_000;
const WARM_UP_MAX_ROUNDS = 6;

/**
 * Whether the warm-up is over, from the RSS read after each round (the first before any): at
 * least two rounds, then once a round moved the RSS by less than 3%, or after the last round.
 */
export function warmedUp(rss: readonly number[]): boolean {
  const rounds = rss.length - 1;
  if (rounds < 2) {
    return false;
  }
  const last = rss.at(-1) ?? 0;
  const previous = rss.at(-2) ?? 0;
  return rounds >= WARM_UP_MAX_ROUNDS || Math.abs(last / previous - 1) < 0.03;
}

async function settle(pid: number, baseline: number): Promise<{ fds: number; sockets: number }> {
  // Closed sockets leave the table as their close events run: give them up to 10 s.
  let now = await descriptors(pid);
  for (let attempt = 0; attempt < 100 && now.fds > baseline; attempt += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    now = await descriptors(pid);
  }
  return now;
}

export async function benchSoak(
  repoRoot: string,
  model: string,
  requests = 10_000,
  concurrency = 8,
  gatewayNodeArgs: readonly string[] = [],
): Promise<SoakFigures> {
  const loadAtStart = loadavg()[0] ?? Number.NaN;
  const paths = await startBenchPaths(repoRoot, model, gatewayNodeArgs, false);
  try {
    const gateway = paths.targets.find((target) => target.name === 'svc gateway');
    const pid = gateway?.pid ?? 0;
    const port = Number(new URL(gateway?.url ?? '').port);
    const run = async (count: number, counts: Record<string, number>): Promise<void> => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < count) {
          const index = next;
          next += 1;
          const ending = endingOf(index);
          const outcome = await streamOnce(port, ending);
          const key = outcome === 'failed' ? 'failed' : ending;
          counts[key] = (counts[key] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
    };
    // Warm-up: the same mix, in rounds, until the RSS holds (warmedUp): V8 grows its young
    // generation to its 32 MiB ceiling and sizes its old one only after a few thousand requests
    // here, and a growth that ends there is the heap reaching its working size, not a leak. The
    // run's checkpoints then tell a leak (climbing at every fifth) from a heap still settling.
    const warmUpRss: number[] = [(await memoryMiB(pid)).rss];
    while (!warmedUp(warmUpRss)) {
      await run(WARM_UP_ROUND, {});
      warmUpRss.push((await memoryMiB(pid)).rss);
    }
    const fdsBefore = await settle(pid, Number.POSITIVE_INFINITY);
    const rssBefore = (await memoryMiB(pid)).rss;
    const counts: Record<string, number> = {};
    const started = performance.now();
    // In fifths, reading RSS after each: a leak climbs at every step, a heap settling does not.
    const checkpoints: number[] = [];
    for (let fifth = 0; fifth < 5; fifth += 1) {
      await run(requests / 5, counts);
      checkpoints.push((await memoryMiB(pid)).rss);
    }
    const seconds = (performance.now() - started) / 1000;
    const fdsAfter = await settle(pid, fdsBefore.fds);
    return {
      requests,
      concurrency,
      seconds,
      completed: counts['complete'] ?? 0,
      reset: counts['reset'] ?? 0,
      finished: counts['fin'] ?? 0,
      failed: counts['failed'] ?? 0,
      checkpoints,
      warmUp: { round: WARM_UP_ROUND, rss: warmUpRss },
      before: { ...fdsBefore, rss: rssBefore },
      after: { ...fdsAfter, rss: (await memoryMiB(pid)).rss },
      load: [loadAtStart, loadavg()[0] ?? Number.NaN],
    };
  } finally {
    await paths.close();
  }
}
