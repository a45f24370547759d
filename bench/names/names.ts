/**
 * What a name costs the gateway (docs/design.md D31), in one run against one real llama-server
 * that the gateway runs as a local node: the same 1 KB request by the node's served name (its body
 * passes byte for byte), by an alias (the body's model rewritten) and by a variant (placed as its
 * model, its `set` applied, then the model rewritten). The three are interleaved so drift on the
 * machine hits all alike. The figure is the gateway's own time before forwarding, from the
 * `Server-Timing: gateway;dur=` it adds to every reply, and the whole request's time beside it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { rewriteBody } from '../../src/gateway/bodies/body-rewrite.ts';
import { RequestNames } from '../../src/gateway/names/request-names.ts';
import { percentile } from '../gateway.ts';
import { fleetReady, until } from '../local-paths.ts';
import { stopChildTrees } from '../process-trees.ts';
import { freePort, svcEnv, waitForLine } from '../support.ts';

export interface NameFigures {
  readonly name: 'served name' | 'alias' | 'variant';
  /** p50 of the gateway's own time before forwarding, ms. */
  readonly gatewayP50: number;
  /** p50 of the whole request, ms. */
  readonly totalP50: number;
}

export interface NamesBench {
  readonly rounds: number;
  readonly figures: readonly NameFigures[];
  /**
   * In process, µs per request at p50 over batches: the look-up and, where a name needs it, the
   * rewrite of the same 1 KB body (the Server-Timing figure is in tenths of a millisecond).
   */
  readonly inProcessUs: Readonly<Record<NameFigures['name'], number>>;
}

const BATCHES = 200;
const PER_BATCH = 200;

/** The same look-up and rewrite the gateway does per request, timed in batches. */
function inProcess(): NamesBench['inProcessUs'] {
  const names = RequestNames.of(
    {
      nodes: [
        {
          name: 'tiny',
          kind: 'local',
          file: 'tiny.svc',
          wake: 'on',
          ownWake: false,
          aliases: ['gpt-4o'],
        },
      ],
      variants: [{ name: 'fast', model: 'gpt-4o', set: { temperature: 0 }, strip: ['top_k'] }],
    },
    () => 'tiny',
  );
  const result: Record<string, number> = {};
  for (const [name, requested] of NAMES) {
    const payload = Buffer.from(body(requested));
    const batches: number[] = [];
    let size = 0;
    for (let batch = 0; batch < BATCHES; batch += 1) {
      const started = performance.now();
      for (let index = 0; index < PER_BATCH; index += 1) {
        const change = names?.change(requested, 'tiny');
        size += (change === undefined ? payload : rewriteBody(payload, change)).length;
      }
      batches.push(((performance.now() - started) * 1000) / PER_BATCH);
    }
    result[name] = size > 0 ? percentile(batches, 50) : Number.NaN;
  }
  return result as NamesBench['inProcessUs'];
}

const NAMES = [
  ['served name', 'tiny'],
  ['alias', 'gpt-4o'],
  ['variant', 'fast'],
] as const;

/** A 1 KB request: the text rides in a field llama-server ignores, as in bench/gateway.ts. */
const body = (model: string): string =>
  JSON.stringify({
    model,
    messages: [{ role: 'user', content: 'hi' }],
    max_tokens: 1,
    user: 'x'.repeat(1024),
  });

export async function benchNames(
  repoRoot: string,
  model: string,
  rounds: number,
): Promise<NamesBench> {
  const work = await mkdtemp(join(tmpdir(), 'svc-namesbench-'));
  const children: ChildProcess[] = [];
  try {
    const port = await freePort();
    await writeFile(
      join(work, 'engine.ini'),
      '[engine]\nthreads-http = 32\nlog-verbosity = 1\nthreads = 1\n',
    );
    await writeFile(
      join(work, 'tiny.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nPRESET ${join(work, 'engine.ini')}\nBASEURL 127.0.0.1:${port}\n`,
    );
    await writeFile(
      join(work, 'fleet.yaml'),
      [
        'nodes:',
        '  - {name: tiny, kind: local, file: tiny.svc, keepWarm: on, aliases: [gpt-4o]}',
        'variants:',
        '  fast: {model: gpt-4o, set: {temperature: 0}, strip: [top_k]}',
        '',
      ].join('\n'),
    );
    const child = spawn(
      process.execPath,
      [join(repoRoot, 'dist', 'cli.js'), 'gateway', '--listen', '127.0.0.1:0', '-f', 'fleet.yaml'],
      {
        cwd: work,
        env: { ...svcEnv(repoRoot), SVC_CONFIG_DIR: join(work, 'config'), SVC_API_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(child);
    const [, url = ''] = await waitForLine(child, /listening on (http:\/\/\S+)/);
    await until(() => fleetReady(url), 'the local node was not ready', 180_000);
    const gateway = new Map<string, number[]>(NAMES.map(([name]) => [name, []]));
    const total = new Map<string, number[]>(NAMES.map(([name]) => [name, []]));
    // A warm-up round per name is not counted: the first request of each path pays for JIT.
    for (let round = -10; round < rounds; round += 1) {
      for (const [name, requested] of NAMES) {
        const started = performance.now();
        const reply = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: body(requested),
        });
        await reply.arrayBuffer();
        const elapsed = performance.now() - started;
        const own = /gateway;dur=([\d.]+)/.exec(reply.headers.get('server-timing') ?? '')?.[1];
        if (reply.status !== 200 || own === undefined) {
          throw new Error(`${name} (${requested}): status ${reply.status}, no gateway time`);
        }
        if (round >= 0) {
          gateway.get(name)?.push(Number(own));
          total.get(name)?.push(elapsed);
        }
      }
    }
    return {
      rounds,
      inProcessUs: inProcess(),
      figures: NAMES.map(([name]) => ({
        name,
        gatewayP50: percentile(gateway.get(name) ?? [], 50),
        totalP50: percentile(total.get(name) ?? [], 50),
      })),
    };
  } finally {
    await stopChildTrees(children);
    await rm(work, { recursive: true, force: true });
  }
}

/** The section of docs/benchmarks.md: one row per name, the alias and variant against the plain. */
export function namesReport(bench: NamesBench, machine: string): string {
  const plain = bench.figures.find((figure) => figure.name === 'served name');
  const rows = bench.figures.map((figure) => {
    const added =
      plain === undefined || figure === plain
        ? '—'
        : `${(figure.gatewayP50 - plain.gatewayP50).toFixed(1)} ms`;
    return `| ${figure.name} | ${figure.gatewayP50.toFixed(1)} ms | ${added} | ${bench.inProcessUs[figure.name].toFixed(1)} µs | ${figure.totalP50.toFixed(2)} ms |`;
  });
  return [
    `${bench.rounds} rounds of the three names, interleaved, 1 KB bodies; ${machine}.`,
    '',
    '| Requested by | Gateway time p50 | Added over the served name | Look-up and rewrite, in process (p50) | Whole request p50 |',
    '| --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
