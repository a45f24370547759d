/**
 * What reading a model request's body costs the gateway: the model, the stream flag and the
 * affinity key, as `complete()` takes them (src/gateway/bodies/request-target.ts, body-scan.ts,
 * src/core/fleet/scheduling/requests/affinity-key.ts), over the gateway section's 1 KB and 1 MB bodies and
 * a coding agent's 1 MB conversation. CPU time per call, the least of several batches: on a
 * shared machine a batch can only be slowed by other work, never sped up, so the least is the
 * figure nearest the code's own cost.
 *
 * `BENCH_BEFORE_SRC=<another checkout>/src npx tsx bench/body-scan-cost.ts` times that checkout's
 * code too, in the same run and interleaved batch by batch, so a change is judged against its
 * predecessor on the same load (before the one scan: a parse or a scan for the model, then a
 * second scan and a SHA-256 for the key).
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

import { affinityKey } from '../src/core/fleet/scheduling/requests/affinity-key.ts';
import { modelRequestOf } from '../src/gateway/bodies/request-target.ts';
import { chat } from './gateway.ts';

/** Batches timed per body and build. */
export const BODY_SCAN_BATCHES = 15;

/** One way of reading a body: what complete() derives from it. */
export type ReadBody = (body: Buffer) => unknown;

export interface BodyCost {
  readonly body: string;
  readonly bytes: number;
  /** Microseconds of CPU time per call, the least batch, per build ('this' and maybe 'before'). */
  readonly us: Readonly<Record<string, number>>;
}

const code = (line: number): string =>
  `    const value${line} = parse(input, { strict: true, note: "line ${line}\\tof the file" });\n`;

/** A coding agent's conversation: a long system prompt, a question, then turns of code. */
function agentBody(): string {
  const system = { role: 'system', content: 'You are a careful coding agent. '.repeat(500) };
  const messages: unknown[] = [system, { role: 'user', content: 'Fix the failing test' }];
  let size = 0;
  for (let turn = 0; size < 1_000_000; turn += 1) {
    const content = Array.from({ length: 200 }, (_, line) => code(line)).join('');
    size += content.length;
    messages.push({ role: 'assistant', content: `Reading src/file${turn}.ts` });
    messages.push({ role: 'tool', content });
  }
  return JSON.stringify({ model: 'tiny', messages, stream: true, max_tokens: 256 });
}

export const BODIES: readonly [string, Buffer][] = [
  ['1 KB prompt', Buffer.from(chat({ user: 'x'.repeat(1024) }))],
  ['1 MB prompt', Buffer.from(chat({ user: 'lorem ipsum dolor sit amet, '.repeat(37_450) }))],
  ['agent, 1 MB of turns', Buffer.from(agentBody())],
];

/** This checkout's reading: the lines of complete() that read the body. */
const readHere: ReadBody = (body) => {
  const request = modelRequestOf(body);
  return [request, request.prompt && affinityKey(body, request.prompt)];
};

/** Another checkout's reading (`src`: its src/ folder), however its modules were then shaped. */
export async function readerOf(src: string): Promise<ReadBody> {
  const url = (path: string): string => pathToFileURL(resolve(src, path)).href;
  const target = (await import(url('gateway/bodies/request-target.ts'))) as {
    modelRequestOf(body: Buffer): { model: string; prompt?: { start: number; end: number } };
  };
  const key = (await import(url('core/fleet/scheduling/requests/affinity-key.ts'))) as {
    affinityKey(body: Buffer, range?: { start: number; end: number }): string | undefined;
    leadingPrompt?: unknown;
  };
  if (key.leadingPrompt !== undefined) {
    // Before the one scan: the key found its own range in a second scan.
    return (body) => [target.modelRequestOf(body), key.affinityKey(body)];
  }
  return (body) => {
    const request = target.modelRequestOf(body);
    return [request, request.prompt && key.affinityKey(body, request.prompt)];
  };
}

function batchUs(read: ReadBody, body: Buffer, calls: number): number {
  const started = process.cpuUsage();
  for (let call = 0; call < calls; call += 1) {
    read(body);
  }
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

export async function benchBodyScanCost(
  before: string | undefined = process.env['BENCH_BEFORE_SRC'],
  batches = BODY_SCAN_BATCHES,
): Promise<BodyCost[]> {
  const readers: [string, ReadBody][] = [['this', readHere]];
  if (before !== undefined && before !== '') {
    readers.push(['before', await readerOf(before)]);
  }
  return BODIES.map(([name, body]) => {
    // About 20 ms of work per batch, whatever the body's size.
    const calls = Math.max(20, Math.round(20_000_000 / body.length));
    const least: Record<string, number> = {};
    for (const [build, read] of readers) {
      batchUs(read, body, calls); // warm-up: compiled before it is timed
      least[build] = Number.POSITIVE_INFINITY;
    }
    for (let batch = 0; batch < batches; batch += 1) {
      for (const [build, read] of batch % 2 === 0 ? readers : [...readers].reverse()) {
        least[build] = Math.min(
          least[build] ?? Number.POSITIVE_INFINITY,
          batchUs(read, body, calls),
        );
      }
    }
    return { body: name, bytes: body.length, us: least };
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { loadavg } = await import('node:os');
  const start = loadavg()[0] ?? 0;
  const costs = await benchBodyScanCost();
  for (const cost of costs) {
    const builds = Object.entries(cost.us).map(([build, us]) => `${build} ${us.toFixed(2)} µs`);
    process.stdout.write(`${cost.body} (${cost.bytes} bytes): ${builds.join(', ')}\n`);
  }
  process.stdout.write(`load average ${start.toFixed(1)} → ${(loadavg()[0] ?? 0).toFixed(1)}\n`);
}
