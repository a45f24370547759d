/**
 * `npm run demo`: a local fleet of one, for real. It makes the tiny test model, starts a daemon
 * and the gateway on loopback, streams a completion through the gateway (which wakes the node
 * and its llama-server), then leaves both running until Ctrl+C. Uses the engine kit
 * (scripts/install-test-engine.sh) or a llama-server already on PATH.
 *
 * SIGINT or SIGTERM, at any point and however many arrive, stops the whole tree: the gateway,
 * then the daemon (which stops its engine); once every one of them has exited it prints one last
 * line. The npm script
 * runs this file with `exec node --import tsx`, so the signal npm forwards lands here, not on a
 * shell or a wrapper process that would die and leave the tree running.
 *
 *   SVC_DEMO_PORT   gateway port (default 4000, or a free one when taken; 0 for any free port)
 *   SVC_DEMO_DIR    where the model, the Svcfile and the fleet file go (default .cache/demo)
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { freePort } from '../test/support/http/net.ts';
import { writeTinyModel } from '../test/support/models/tiny-model.ts';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const demo = resolve(process.env['SVC_DEMO_DIR'] || join(root, '.cache', 'demo'));
const cli = join(root, 'dist', 'cli.js');
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** Every process this script started, oldest first; stopped newest first. */
const children: ChildProcess[] = [];
const cancelled = new AbortController();
let stopping: Promise<void> | undefined;

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((done) => child.once('exit', () => done()));
}

/** Stops every child (by its PID, newest first) and waits for each before the last line. */
function shutdown(): Promise<void> {
  stopping ??= (async () => {
    cancelled.abort();
    for (const child of [...children].reverse()) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
      }
      await exited(child);
    }
    say('demo stopped: the gateway, the daemon and its engine have all exited');
  })();
  return stopping;
}
// `on`, not `once`: Ctrl+C in a terminal delivers SIGINT twice (the terminal signals the whole
// foreground group, and npm forwards its own), and a second signal with no listener would end
// this script half-way through the clean-up, before the last line, with npm returning at once.
process.on('SIGINT', () => void shutdown());
process.on('SIGTERM', () => void shutdown());

function track(child: ChildProcess): ChildProcess {
  children.push(child);
  if (stopping !== undefined) {
    child.kill('SIGTERM');
  }
  return child;
}

async function preferredPort(preferred: number): Promise<number> {
  if (preferred === 0) {
    return freePort();
  }
  const { createServer } = await import('node:net');
  const server = createServer();
  const free = await new Promise<boolean>((done) => {
    server.once('error', () => done(false));
    server.listen(preferred, '127.0.0.1', () => done(true));
  });
  await new Promise((done) => server.close(done));
  return free ? preferred : freePort();
}

function start(args: string[], env: Record<string, string>): Promise<string> {
  const child = track(
    spawn(process.execPath, [cli, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    }),
  );
  return new Promise((done, fail) => {
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        done(match[1]);
      }
    });
    child.once('exit', (code) => {
      fail(new Error(`svc ${args[0] ?? ''} exited (${code ?? 'signal'}) before listening`));
    });
  });
}

async function installEngine(): Promise<void> {
  const child = track(
    spawn('bash', [join(root, 'scripts', 'install-test-engine.sh')], { stdio: 'inherit' }),
  );
  await exited(child);
  if (child.exitCode !== 0 && stopping === undefined) {
    throw new Error('scripts/install-test-engine.sh failed: see above');
  }
}

async function streamOnce(gateway: string): Promise<void> {
  say('\nStreaming a completion through the gateway (the first request wakes the node):');
  const started = performance.now();
  const reply = await fetch(`${gateway}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      model: 'tiny',
      messages: [{ role: 'user', content: 'hello' }],
      max_tokens: 16,
      stream: true,
    }),
    signal: cancelled.signal,
  });
  let chunks = 0;
  const decoder = new TextDecoder();
  for await (const bytes of reply.body ?? []) {
    for (const line of decoder.decode(bytes as Uint8Array, { stream: true }).split('\n')) {
      if (line.startsWith('data: ') && line !== 'data: [DONE]') {
        chunks += 1;
        const piece = (
          JSON.parse(line.slice(6)) as { choices: { delta: { content?: string | null } }[] }
        ).choices[0]?.delta.content;
        process.stdout.write(`${JSON.stringify(piece ?? '')} `);
      }
    }
  }
  say(
    `\n${reply.status} · ${chunks} chunks in ${(performance.now() - started).toFixed(0)} ms (the tiny model answers gibberish)\n`,
  );
}

async function main(): Promise<void> {
  await installEngine();
  const path = `${join(root, '.cache', 'engines', 'bin')}:${process.env['PATH'] ?? ''}`;
  await mkdir(join(demo, 'tiny'), { recursive: true });
  // Trained context 32k, so a coding agent's first prompt (about 12k tokens: `svc code`) fits.
  await writeTinyModel(join(demo, 'tiny.gguf'), { contextLength: 32_768 });
  const enginePort = await freePort();
  // A relative MODEL resolves against the Svcfile's directory (spec §1.4, like PRESET).
  await writeFile(
    join(demo, 'tiny', 'Svcfile'),
    `# The demo node: llama.cpp serving the tiny generated model\nPROVIDER llamacpp\nMODEL ../tiny.gguf\nALIAS tiny\nCONTEXT 32k\nBASEURL 127.0.0.1:${enginePort}\n`,
  );

  const daemon = await start(['daemon', '--api-addr', '127.0.0.1:0'], {
    PATH: path,
    SVC_CONFIG_DIR: join(demo, 'node-config'),
  });
  say(`daemon   ${daemon}`);
  const gatewayPort = await preferredPort(Number(process.env['SVC_DEMO_PORT'] ?? '4000'));
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await writeFile(
    join(demo, 'fleet.yaml'),
    [
      '# A fleet of one: the daemon above, on this machine.',
      'gateway:',
      `  url: ${gatewayUrl}`,
      'nodes:',
      '  - name: tiny',
      '    host: 127.0.0.1',
      `    port: ${new URL(daemon).port}`,
      '    engine: {host: 127.0.0.1}',
      '',
    ].join('\n'),
  );
  const gateway = await start(
    ['gateway', '--listen', `127.0.0.1:${gatewayPort}`, '-f', join(demo, 'fleet.yaml')],
    { PATH: path, SVC_CONFIG_DIR: join(demo, 'gateway-config'), SVC_API_TOKEN: '' },
  );
  say(`gateway  ${gateway}  (fleet: ${join(demo, 'fleet.yaml')})`);

  await streamOnce(gateway);
  const fleet = relative(process.cwd(), join(demo, 'fleet.yaml'));
  say('The gateway is running. Try:');
  say(`  curl -s ${gateway}/v1/models`);
  say(`  curl -s ${gateway}/v1/fleet`);
  say(
    `  curl -sN ${gateway}/v1/chat/completions -H 'content-type: application/json' -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true}'`,
  );
  say(`  node dist/cli.js fleet status -f ${fleet}`);
  say('Ctrl+C stops the gateway, the daemon and the engine.');
}

try {
  await main();
} catch (error) {
  if (stopping === undefined) {
    process.stderr.write(`demo: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
// Runs until a signal, or until a child ends on its own; either way everything is stopped.
const services = children.filter((child) => child.spawnfile === process.execPath);
if (services.length > 0) {
  await Promise.race(services.map(exited));
}
await shutdown();
