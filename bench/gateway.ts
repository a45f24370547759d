/**
 * What the gateway adds to a request (issue 7 targets), measured in one run against the same real
 * llama-server on 127.0.0.1: direct, nginx (one worker, proxy_buffering off, keep-alive upstream)
 * as the reference proxy, a naive Node proxy (bench/naive-proxy.mjs) as the Node floor, and the
 * gateway in front of a daemon. Targets are interleaved so drift on the machine hits all alike.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Pool } from 'undici';

import { freePort, spawned, stopChildren, waitForLine } from './support.ts';

export interface TargetFigures {
  name: string;
  p50: number;
  p99: number;
  ttfbP50: number;
  rps?: number;
}

export interface GatewayBench {
  targets: TargetFigures[];
  gatewayRssMiB: number;
  samples: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function waitHealthy(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    try {
      const reply = await fetch(url);
      if (reply.status === 200) {
        return;
      }
    } catch {
      // not yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} never became healthy`);
}

const BODY = JSON.stringify({
  model: 'tiny',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 1,
});
const STREAM_BODY = JSON.stringify({
  model: 'tiny',
  messages: [{ role: 'user', content: 'hi' }],
  max_tokens: 4,
  stream: true,
});

async function timeOne(pool: Pool, streaming: boolean): Promise<{ total: number; ttfb: number }> {
  const started = performance.now();
  const reply = await pool.request({
    path: '/v1/chat/completions',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: streaming ? STREAM_BODY : BODY,
    reset: streaming,
  });
  let ttfb = 0;
  for await (const chunk of reply.body) {
    if (ttfb === 0 && (chunk as Buffer).length > 0) {
      ttfb = performance.now() - started;
    }
  }
  if (reply.statusCode !== 200) {
    throw new Error(`HTTP ${reply.statusCode}`);
  }
  return { total: performance.now() - started, ttfb };
}

function wrk(url: string, seconds: number, luaPath: string): number {
  const output = execFileSync(
    'wrk',
    ['-t2', '-c16', `-d${seconds}s`, '-s', luaPath, `${url}/v1/chat/completions`],
    {
      encoding: 'utf8',
    },
  );
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(output)?.[1] ?? Number.NaN);
}

export async function benchGateway(
  repoRoot: string,
  model: string,
  samples = 400,
): Promise<GatewayBench> {
  const work = await mkdtemp(join(tmpdir(), 'svc-gwbench-'));
  const children: ChildProcess[] = [];
  const env = {
    ...process.env,
    PATH: `${join(repoRoot, '.cache', 'engines', 'bin')}:${process.env['PATH'] ?? ''}`,
    SVC_LOG_LEVEL: 'warn',
  };
  const cli = join(repoRoot, 'dist', 'cli.js');
  try {
    // The daemon runs the engine, as a fleet node would.
    const daemon = spawn(process.execPath, [cli, 'daemon', '--api-addr', '127.0.0.1:0'], {
      env: { ...env, SVC_CONFIG_DIR: join(work, 'node') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(daemon);
    const [, daemonUrl = ''] = await waitForLine(daemon, /listening on (http:\/\/\S+)/);
    const enginePort = await freePort();
    const started = await fetch(`${daemonUrl}/v1/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        runner: 'llamacpp',
        modelId: model,
        servedModelName: 'tiny',
        serveArgs: [
          '--host',
          '127.0.0.1',
          '--port',
          String(enginePort),
          '--threads-http',
          '32',
          '-lv',
          '1',
          // llama.cpp's compute threads spin; on a 2-core machine two of them starve the proxies.
          '--threads',
          '1',
        ],
      }),
    });
    if (started.status !== 200) {
      throw new Error(`engine start failed: ${await started.text()}`);
    }
    const direct = `http://127.0.0.1:${enginePort}`;
    await waitHealthy(`${direct}/health`);

    await writeFile(
      join(work, 'fleet.yaml'),
      `nodes:\n  - name: bench\n    host: 127.0.0.1\n    port: ${new URL(daemonUrl).port}\n    engine: {host: 127.0.0.1}\n`,
    );
    const gateway = spawn(
      process.execPath,
      [cli, 'gateway', '--listen', '127.0.0.1:0', '-f', join(work, 'fleet.yaml')],
      {
        env: { ...env, SVC_CONFIG_DIR: join(work, 'gateway'), SVC_API_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(gateway);
    const [, gatewayUrl = ''] = await waitForLine(gateway, /listening on (http:\/\/\S+)/);
    // BENCH_GATEWAY_BASELINE=<another build's dist/cli.js> adds that gateway as one more target,
    // interleaved with this one: a before/after that one shared-machine run can compare.
    const baselineCli = process.env['BENCH_GATEWAY_BASELINE'];
    let baselineUrl: string | undefined;
    if (baselineCli !== undefined && baselineCli !== '') {
      const baseline = spawn(
        process.execPath,
        [baselineCli, 'gateway', '--listen', '127.0.0.1:0', '-f', join(work, 'fleet.yaml')],
        {
          env: { ...env, SVC_CONFIG_DIR: join(work, 'baseline'), SVC_API_TOKEN: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      children.push(baseline);
      [, baselineUrl = ''] = await waitForLine(baseline, /listening on (http:\/\/\S+)/);
    }

    const naive = spawn(process.execPath, [join(repoRoot, 'bench', 'naive-proxy.mjs'), direct], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(naive);
    const [, naivePort = ''] = await waitForLine(naive, /naive proxy on (\d+)/);

    const nginxPort = await freePort();
    await writeFile(
      join(work, 'nginx.conf'),
      [
        'worker_processes 1;',
        'daemon off;',
        `pid ${join(work, 'nginx.pid')};`,
        `error_log ${join(work, 'nginx-error.log')} warn;`,
        'events { worker_connections 1024; }',
        'http {',
        '  access_log off;',
        `  client_body_temp_path ${work}/nginx-body; proxy_temp_path ${work}/nginx-proxy;`,
        `  fastcgi_temp_path ${work}/nginx-f; uwsgi_temp_path ${work}/nginx-u; scgi_temp_path ${work}/nginx-s;`,
        `  upstream engine { server 127.0.0.1:${enginePort}; keepalive 32; }`,
        `  server { listen 127.0.0.1:${nginxPort};`,
        '    location / { proxy_pass http://engine; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }',
        '  }',
        '}',
      ].join('\n'),
    );
    const nginx = spawn('nginx', ['-c', join(work, 'nginx.conf'), '-p', work], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(nginx);
    await spawned(nginx, 'the nginx anchor needs nginx on PATH (apt-get install nginx)');
    const nginxUrl = `http://127.0.0.1:${nginxPort}`;

    const targets = [
      { name: 'direct', url: direct },
      { name: 'nginx', url: nginxUrl },
      { name: 'naive Node proxy', url: `http://127.0.0.1:${naivePort}` },
      { name: 'svc gateway', url: gatewayUrl },
      ...(baselineUrl === undefined ? [] : [{ name: 'svc gateway (baseline)', url: baselineUrl }]),
    ];
    await waitHealthy(`${nginxUrl}/health`);
    const pools = new Map(
      targets.map((target) => [
        target.name,
        new Pool(target.url, { connections: 1, keepAliveTimeout: 4_000 }),
      ]),
    );
    const totals = new Map(targets.map((target) => [target.name, [] as number[]]));
    const ttfbs = new Map(targets.map((target) => [target.name, [] as number[]]));

    // Warm up every path, then interleave: each round visits every target in a rotating order.
    for (let round = 0; round < 50; round += 1) {
      for (const target of targets) {
        await timeOne(pools.get(target.name) as Pool, round % 2 === 0);
      }
    }
    for (let round = 0; round < samples; round += 1) {
      const order = targets.map((_, index) => targets[(index + round) % targets.length]);
      for (const target of order) {
        if (target === undefined) {
          continue;
        }
        const pool = pools.get(target.name) as Pool;
        totals.get(target.name)?.push((await timeOne(pool, false)).total);
        ttfbs.get(target.name)?.push((await timeOne(pool, true)).ttfb);
      }
    }
    await Promise.all([...pools.values()].map((pool) => pool.close()));

    const lua = join(work, 'post.lua');
    await writeFile(
      lua,
      `wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = '${BODY}'\n`,
    );
    const rps = new Map<string, number[]>();
    for (let pass = 0; pass < 2; pass += 1) {
      for (const target of pass === 0 ? targets : [...targets].reverse()) {
        rps.set(target.name, [...(rps.get(target.name) ?? []), wrk(target.url, 6, lua)]);
      }
    }

    const status = await readFile(`/proc/${gateway.pid ?? 0}/status`, 'utf8');
    const gatewayRssMiB = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    return {
      samples,
      gatewayRssMiB,
      targets: targets.map((target) => {
        const runs = rps.get(target.name) ?? [];
        return {
          name: target.name,
          p50: percentile(totals.get(target.name) ?? [], 50),
          p99: percentile(totals.get(target.name) ?? [], 99),
          ttfbP50: percentile(ttfbs.get(target.name) ?? [], 50),
          rps: runs.reduce((a, b) => a + b, 0) / Math.max(1, runs.length),
        };
      }),
    };
  } finally {
    await stopChildren(children);
    await rm(work, { recursive: true, force: true });
  }
}
