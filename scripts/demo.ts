/**
 * `npm run demo`: a local fleet of one, for real. It makes the tiny test model, starts a daemon
 * and the gateway on loopback, streams a completion through the gateway (which wakes the node
 * and its llama-server), then leaves both running until Ctrl+C. Uses the engine kit
 * (scripts/install-test-engine.sh) or a llama-server already on PATH.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { writeTinyModel } from '../test/support/tiny-model.ts';

const root = resolve(fileURLToPath(import.meta.url), '../..');
const demo = join(root, '.cache', 'demo');
const cli = join(root, 'dist', 'cli.js');
const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function freePort(preferred?: number): Promise<number> {
  const server = createServer();
  const port = await new Promise<number>((done, fail) => {
    server.once('error', fail);
    server.listen(preferred ?? 0, '127.0.0.1', () => {
      const address = server.address();
      done(typeof address === 'object' && address !== null ? address.port : 0);
    });
  }).catch(() => freePort());
  await new Promise((done) => server.close(done));
  return port;
}

function start(
  args: string[],
  env: Record<string, string>,
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [cli, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((done, fail) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match?.[1] !== undefined) {
        done({ child, url: match[1] });
      }
    });
    child.once('exit', (code) => {
      fail(new Error(`svc ${args[0] ?? ''} exited (${code ?? 'signal'}) before listening`));
    });
  });
}

execFileSync('bash', [join(root, 'scripts', 'install-test-engine.sh')], { stdio: 'inherit' });
const path = `${join(root, '.cache', 'engines', 'bin')}:${process.env['PATH'] ?? ''}`;

await mkdir(join(demo, 'tiny'), { recursive: true });
const model = await writeTinyModel(join(demo, 'tiny.gguf'));
const enginePort = await freePort();
await writeFile(
  join(demo, 'tiny', 'Svcfile'),
  `# The demo node: llama.cpp serving the tiny generated model\nPROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nCONTEXT 2k\nBASEURL 127.0.0.1:${enginePort}\n`,
);

const daemon = await start(['daemon', '--api-addr', '127.0.0.1:0'], {
  PATH: path,
  SVC_CONFIG_DIR: join(demo, 'node-config'),
});
say(`daemon   ${daemon.url}`);
await writeFile(
  join(demo, 'fleet.yaml'),
  [
    '# A fleet of one: the daemon above, on this machine.',
    'nodes:',
    '  - name: tiny',
    '    host: 127.0.0.1',
    `    port: ${new URL(daemon.url).port}`,
    '    engine: {host: 127.0.0.1}',
    '',
  ].join('\n'),
);
const gatewayPort = await freePort(4000);
const gateway = await start(
  ['gateway', '--listen', `127.0.0.1:${gatewayPort}`, '-f', join(demo, 'fleet.yaml')],
  {
    PATH: path,
    SVC_CONFIG_DIR: join(demo, 'gateway-config'),
    SVC_API_TOKEN: '',
  },
);
say(`gateway  ${gateway.url}  (fleet: ${join(demo, 'fleet.yaml')})`);

const stop = (): void => {
  gateway.child.kill('SIGTERM');
  daemon.child.kill('SIGTERM');
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);

say('\nStreaming a completion through the gateway (the first request wakes the node):');
const started = performance.now();
const reply = await fetch(`${gateway.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({
    model: 'tiny',
    messages: [{ role: 'user', content: 'hello' }],
    max_tokens: 16,
    stream: true,
  }),
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
      process.stdout.write(JSON.stringify(piece ?? ''));
      process.stdout.write(' ');
    }
  }
}
say(
  `\n${reply.status} · ${chunks} chunks in ${(performance.now() - started).toFixed(0)} ms (the tiny model answers gibberish)\n`,
);
say('The gateway is running. Try:');
say(`  curl -s ${gateway.url}/v1/models`);
say(`  curl -s ${gateway.url}/v1/fleet`);
say(
  `  curl -sN ${gateway.url}/v1/chat/completions -H 'content-type: application/json' -d '{"model":"tiny","messages":[{"role":"user","content":"hi"}],"stream":true}'`,
);
say(`  node dist/cli.js fleet status -f ${join(demo, 'fleet.yaml')}`);
say('Ctrl+C stops the gateway, the daemon and the engine.');
await new Promise((done) => gateway.child.once('exit', done));
stop();
await new Promise((done) => daemon.child.once('exit', done));
