/**
 * A local node's engine environment end to end (docs/design.md D27, docs/svcfile.md "Environment"):
 * the built `svc gateway` starts a real llama-server for a `kind: local` node with what `svc serve`
 * would give it from the same Svcfile. Node `shift`'s Svcfile says `ENV LLAMA_ARG_CONTEXT_SHIFT=1`
 * over the gateway's own `0`, and the `.env` beside it fills LLAMA_ARG_ENDPOINT_PROPS, which the
 * gateway leaves empty; node `plain`, from a Svcfile without either, runs with the gateway's. The
 * engine shows it got them: with context shift a reply runs past its 256-token context (and the
 * engine log says `slot context shift`), without it the reply stops at the context's end; the
 * engine's /props reports the props endpoint on only where the .env switched it on.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import type { TestProcess } from '../support/processes/processes.ts';
import { authorized, localNodeFile, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';

/** More tokens than the 256-token context holds: only context shift lets a reply get there. */
const MAX_TOKENS = 400;

let dir: string;
const ports = { shift: 0, plain: 0 };

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  ports.shift = await freePort();
  ports.plain = await freePort();
  const svcfile = (alias: string, port: number, extra: readonly string[]) =>
    [
      'PROVIDER llamacpp',
      `MODEL ${model}`,
      `ALIAS ${alias}`,
      'CONTEXT 256',
      `BASEURL 127.0.0.1:${port}`,
      ...extra,
      '',
    ].join('\n');
  await mkdir(join(dir, 'shift'));
  await mkdir(join(dir, 'plain'));
  await writeFile(
    join(dir, 'shift', 'Svcfile'),
    svcfile('shift', ports.shift, ['ENV LLAMA_ARG_CONTEXT_SHIFT=1']),
  );
  await writeFile(join(dir, 'shift', '.env'), 'LLAMA_ARG_ENDPOINT_PROPS=1\n');
  await writeFile(join(dir, 'plain', 'Svcfile'), svcfile('plain', ports.plain, []));
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      '  - {name: shift, kind: local, file: shift/Svcfile}',
      '  - {name: plain, kind: local, file: plain/Svcfile}',
      '',
    ].join('\n'),
  );
});

/** A chat reply that ignores end-of-sequence, so only the token limit or the context ends it. */
async function longReply(url: string, model: string): Promise<{ status: number; tokens: number }> {
  const reply = await chat(
    url,
    { model, max_tokens: MAX_TOKENS, ignore_eos: true },
    { headers: authorized() },
  );
  const body = (await reply.json()) as { usage?: { completion_tokens?: number } };
  return { status: reply.status, tokens: body.usage?.completion_tokens ?? -1 };
}

async function propsEndpoint(port: number): Promise<unknown> {
  const props = (await (await fetch(`http://127.0.0.1:${port}/props`)).json()) as {
    endpoint_props?: unknown;
  };
  return props.endpoint_props;
}

function enginePid(gateway: TestProcess, node: string): number {
  const path = localNodeFile(gateway, node, 'engine.pid');
  return (JSON.parse(readFileSync(path, 'utf8')) as { pid: number }).pid;
}

describe('local node environment', () => {
  it('runs the engine with the Svcfile ENV lines and the .env beside it, as serve would', async () => {
    const configDir = join(dir, 'config');
    const { gateway, url } = await startTestGateway({
      cwd: dir,
      configDir,
      logLevel: 'debug',
      // The gateway's own values: ENV overrides the one, the .env fills the empty other.
      env: { PATH: testPath(), LLAMA_ARG_CONTEXT_SHIFT: '0', LLAMA_ARG_ENDPOINT_PROPS: '' },
    });

    const shifted = await longReply(url, 'shift');
    killSurvivorsAfterTest([enginePid(gateway, 'shift')]);
    expect(shifted).toEqual({ status: 200, tokens: MAX_TOKENS });
    const plain = await longReply(url, 'plain');
    killSurvivorsAfterTest([enginePid(gateway, 'plain')]);
    expect(plain.status).toBe(200);
    expect(plain.tokens).toBeGreaterThan(0);
    expect(plain.tokens).toBeLessThan(256);

    const log = (node: string) => readFileSync(localNodeFile(gateway, node, 'engine.log'), 'utf8');
    expect(log('shift')).toContain('slot context shift');
    expect(log('plain')).not.toContain('slot context shift');
    expect(await propsEndpoint(ports.shift)).toBe(true);
    expect(await propsEndpoint(ports.plain)).toBe(false);
    // The environment reaches the engine, never svc's own log (debug included).
    expect(gateway.stdout() + gateway.stderr()).not.toContain('LLAMA_ARG_');

    process.kill(gateway.pid, 'SIGTERM');
    expect(await gateway.exited()).toBe(0);
  });
});
