/**
 * The four paths the gateway benchmarks compare, all ending at the same real llama-server on
 * 127.0.0.1: direct, nginx (one worker, proxy_buffering off, keep-alive upstream) as the reference
 * proxy, a naive Node proxy (bench/naive-proxy.mjs) as the Node floor, and the svc gateway in front
 * of a daemon. Each target keeps its process id so CPU time and memory can be read from /proc.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { freePort, spawned, startSvcDaemon, stopChildren, svcEnv, waitForLine } from './support.ts';

export interface PathTarget {
  readonly name: 'direct' | 'nginx' | 'naive Node proxy' | 'svc gateway' | 'svc gateway (before)';
  readonly url: string;
  /** The process that proxies (0 for direct: nothing stands between). */
  readonly pid: number;
}

export interface BenchPaths {
  readonly targets: readonly PathTarget[];
  readonly work: string;
  close(): Promise<void>;
}

export async function waitHealthy(url: string): Promise<void> {
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

function nginxConfig(work: string, port: number, enginePort: number): string {
  return [
    // One process, so its CPU time and memory are read from one pid.
    'master_process off;',
    'worker_processes 1;',
    'daemon off;',
    `pid ${join(work, 'nginx.pid')};`,
    `error_log ${join(work, 'nginx-error.log')} warn;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    `  client_body_temp_path ${work}/nginx-body; proxy_temp_path ${work}/nginx-proxy;`,
    `  fastcgi_temp_path ${work}/nginx-f; uwsgi_temp_path ${work}/nginx-u; scgi_temp_path ${work}/nginx-s;`,
    // A 1 MB prompt is passed on as it arrives, as the other proxies do, not spooled to disk.
    '  client_max_body_size 64m; client_body_buffer_size 2m; proxy_request_buffering off;',
    `  upstream engine { server 127.0.0.1:${enginePort}; keepalive 32; }`,
    `  server { listen 127.0.0.1:${port};`,
    '    location / { proxy_pass http://engine; proxy_http_version 1.1; proxy_set_header Connection ""; proxy_buffering off; }',
    '  }',
    '}',
  ].join('\n');
}

/**
 * Starts the engine (through a daemon, as a fleet node runs it), the gateway, the naive proxy and
 * nginx (without `anchors`, only the engine and the gateway). `gatewayNodeArgs` go to the
 * gateway's node (e.g. `--cpu-prof`).
 */
export async function startBenchPaths(
  repoRoot: string,
  model: string,
  gatewayNodeArgs: readonly string[] = [],
  anchors = true,
): Promise<BenchPaths> {
  const work = await mkdtemp(join(tmpdir(), 'svc-gwbench-'));
  const children: ChildProcess[] = [];
  const close = async (): Promise<void> => {
    await stopChildren(children);
    await rm(work, { recursive: true, force: true });
  };
  const env = svcEnv(repoRoot);
  const cli = join(repoRoot, 'dist', 'cli.js');
  try {
    const { url: daemonUrl } = await startSvcDaemon(repoRoot, env, join(work, 'node'), children);
    const enginePort = await freePort();
    const started = await fetch(`${daemonUrl}/v1/start`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        runner: 'llamacpp',
        modelId: model,
        servedModelName: 'tiny',
        // llama.cpp's compute threads spin; on a 2-core machine two of them starve the proxies.
        serveArgs: ['--host', '127.0.0.1', '--port', String(enginePort)].concat([
          '--threads-http',
          '32',
          '-lv',
          '1',
          '--threads',
          '1',
        ]),
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
      [
        ...gatewayNodeArgs,
        cli,
        'gateway',
        '--listen',
        '127.0.0.1:0',
        '-f',
        join(work, 'fleet.yaml'),
      ],
      {
        env: { ...env, SVC_CONFIG_DIR: join(work, 'gateway'), SVC_API_TOKEN: '' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    children.push(gateway);
    const [, gatewayUrl = ''] = await waitForLine(gateway, /listening on (http:\/\/\S+)/);

    const svc: PathTarget = { name: 'svc gateway', url: gatewayUrl, pid: gateway.pid ?? 0 };
    // BENCH_GATEWAY_BEFORE=<another build's cli.js>: that gateway too, for a same-run comparison.
    const beforeCli = process.env['BENCH_GATEWAY_BEFORE'];
    const extra: PathTarget[] = [];
    if (beforeCli !== undefined && beforeCli !== '' && anchors) {
      const before = spawn(
        process.execPath,
        [beforeCli, 'gateway', '--listen', '127.0.0.1:0', '-f', join(work, 'fleet.yaml')],
        {
          env: { ...env, SVC_CONFIG_DIR: join(work, 'gateway-before'), SVC_API_TOKEN: '' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      children.push(before);
      const [, url = ''] = await waitForLine(before, /listening on (http:\/\/\S+)/);
      extra.push({ name: 'svc gateway (before)', url, pid: before.pid ?? 0 });
    }
    if (!anchors) {
      return { work, close, targets: [{ name: 'direct', url: direct, pid: 0 }, svc] };
    }
    const naive = spawn(process.execPath, [join(repoRoot, 'bench', 'naive-proxy.mjs'), direct], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(naive);
    const [, naivePort = ''] = await waitForLine(naive, /naive proxy on (\d+)/);

    const nginxPort = await freePort();
    await writeFile(join(work, 'nginx.conf'), nginxConfig(work, nginxPort, enginePort));
    const nginx = spawn('nginx', ['-c', join(work, 'nginx.conf'), '-p', work], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(nginx);
    await spawned(nginx, 'the nginx anchor needs nginx on PATH (apt-get install nginx)');
    const nginxUrl = `http://127.0.0.1:${nginxPort}`;
    await waitHealthy(`${nginxUrl}/health`);
    return {
      work,
      close,
      targets: [
        { name: 'direct', url: direct, pid: 0 },
        { name: 'nginx', url: nginxUrl, pid: nginx.pid ?? 0 },
        { name: 'naive Node proxy', url: `http://127.0.0.1:${naivePort}`, pid: naive.pid ?? 0 },
        svc,
        ...extra,
      ],
    };
  } catch (error) {
    await close();
    throw error;
  }
}
