/**
 * `svc code` sizes the REAL opencode (the opencode-ai dev dependency) to its model: what counts is
 * the model as opencode itself reads svc's config (`opencode models <provider> --verbose` prints
 * each model with the `limit` opencode resolved), run through `svc code` exactly as a user's
 * session would be. One model's window comes from a preset's `-c 16384 -np 2` (8192 per request,
 * under opencode's first prompt, so svc warns before launch); an embedding node's model, listed by
 * a real gateway, is not offered to the agent at all.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { type AgentRun, opencodeEnv, runSvcCode } from '../support/svc/agent-fleet.ts';
import {
  authorized,
  ENGINE_KEY,
  NODE_TOKEN,
  startGatewayFleet,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

/** One opencode listing's ceiling: generous for a loaded machine, never what the test measures. */
const RUN_LIMIT_MS = 120_000;

/** The real opencode, its files private to the test (under `dir`/home). */
async function opencodeIn(dir: string): Promise<Record<string, string>> {
  const home = join(dir, 'home');
  await mkdir(join(home, '.config', 'opencode'), { recursive: true });
  return opencodeEnv(home);
}

/** `opencode models --verbose` output: each model's id line, then its JSON. */
function listedModels(
  stdout: string,
): Map<string, { limit?: { context: number; output: number } }> {
  const models = new Map<string, { limit?: { context: number; output: number } }>();
  for (const match of stdout.matchAll(/^(\S+\/\S+)\n(\{[\s\S]*?\n\})$/gm)) {
    models.set(match[1] ?? '', JSON.parse(match[2] ?? '{}') as { limit?: never });
  }
  return models;
}

/** `svc code <args>` running the real opencode (home under `home`), which must exit 0. */
async function listModels(dir: string, args: readonly string[], home = dir): Promise<AgentRun> {
  const run = await runSvcCode(dir, args, await opencodeIn(home), RUN_LIMIT_MS);
  expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
  return run;
}

describe('svc code sizes the real opencode to its model', () => {
  it('gives opencode the window a preset states and the Svcfile OUTPUT, and warns it is too small', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'coder.ini'), '[coder]\nc = 16384\nnp = 2\n');
    await writeFile(
      join(dir, 'coder.svc'),
      'PROVIDER llamacpp\nMODEL org/coder-GGUF:Q4_K_M\nALIAS coder\nPRESET coder.ini\nOUTPUT 2k\n',
    );
    // Nothing listens there: with a Svcfile named, svc code asks the gateway nothing.
    await writeFile(
      join(dir, 'fleet.yaml'),
      'gateway: {url: "http://127.0.0.1:9", name: lab}\nnodes:\n  - {name: gpu, host: 127.0.0.1, port: 9}\n',
    );
    const run = await listModels(dir, ['coder.svc', '--', 'models', 'svc', '--verbose']);
    expect(listedModels(run.stdout).get('svc/coder')?.limit).toEqual({
      context: 8192,
      output: 2000,
    });
    expect(run.stderr).toContain(
      "svc code: warning: coder gives one request 8192 tokens (--ctx-size 16384 / 2 slots), less than opencode's first prompt",
    );
  }, 150_000);

  it('offers opencode only the models that chat, each with its CONTEXT', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    await writeFile(join(dir, 'embed.ini'), '[embed]\nembeddings = 1\n');
    await writeFile(
      join(dir, 'chat.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS chat\nCONTEXT 32k\n`,
    );
    await writeFile(
      join(dir, 'embed.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS embed\nPRESET embed.ini\nCONTEXT 512\n`,
    );
    const nodes = [
      'nodes:',
      '  - {name: chat, kind: local, file: chat.svc}',
      '  - {name: embed, kind: local, file: embed.svc}',
    ];
    await writeFile(join(dir, 'fleet.yaml'), `${nodes.join('\n')}\n`);
    const { url } = await startTestGateway({ cwd: dir, configDir: join(dir, 'config-gateway') });
    await writeFile(
      join(dir, 'fleet.yaml'),
      `gateway: {url: "${url}", tokenEnv: GW_TOKEN, name: lab}\n${nodes.join('\n')}\n`,
    );
    const run = await listModels(dir, ['--yes', '--', 'models', 'lab', '--verbose']);
    const models = listedModels(run.stdout);
    expect([...models.keys()]).toEqual(['lab/chat']);
    // No OUTPUT in the Svcfile: 0, opencode's own value for an unknown reply cap.
    expect(models.get('lab/chat')?.limit).toEqual({ context: 32000, output: 0 });
  }, 150_000);
});

describe('svc code --node sizes the real opencode from the running engine', () => {
  it("gives opencode the window the engine's GET /props reports for one slot", async () => {
    const work = await tempDir();
    const model = await writeTinyModel(join(work, 'tiny.gguf'));
    // Four slots share 4096 tokens: the engine gives one request 1024, which no flag of the
    // Svcfile states on its own.
    const fleet = await startGatewayFleet([
      {
        name: 'a',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nPRESET slots.ini\nBASEURL 127.0.0.1:{port}\n`,
        files: { 'slots.ini': '[slots]\nc = 4096\nnp = 4\n' },
      },
    ]);
    const started = await fetch(`${fleet.url}/v1/fleet/nodes/a/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(started.status).toBe(200);
    // Ready first: a loading engine answers /props 503, and svc code then sizes nothing.
    const status = await eventually(
      async () =>
        (await (
          await fetch(`${fleet.daemons['a']?.url ?? ''}/v1/status`, {
            headers: { authorization: `Bearer ${NODE_TOKEN}` },
          })
        ).json()) as { ready?: string; engine: { port: number } },
      (reply) => reply.ready === 'ready',
      "node a's engine ready",
      { timeoutMs: 60_000 },
    );
    // What the engine itself says, read the way svc reads it (its key is required).
    const propsReply = await fetch(`http://127.0.0.1:${status.engine.port}/props`, {
      headers: { authorization: `Bearer ${ENGINE_KEY}` },
    });
    const propsText = await propsReply.text();
    expect(propsReply.status, propsText).toBe(200);
    const props = JSON.parse(propsText) as { default_generation_settings: { n_ctx: number } };
    expect(props.default_generation_settings.n_ctx).toBe(1024);

    const run = await listModels(
      fleet.dir,
      ['--node', 'a', '--', 'models', 'a', '--verbose'],
      work,
    );
    expect(listedModels(run.stdout).get('a/tiny')?.limit).toEqual({ context: 1024, output: 0 });
    expect(run.stderr).toContain(
      "svc code: warning: tiny gives one request 1024 tokens (n_ctx per slot, from the running engine's GET /props)",
    );
  }, 180_000);
});

describe('svc code through the gateway sizes the real opencode from the running engine', () => {
  it("gives a model its running engine's window where the Svcfile states none", async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    // No CONTEXT, no context flag: only the running engine knows its window.
    await writeFile(join(dir, 'chat.svc'), `PROVIDER llamacpp\nMODEL ${model}\nALIAS chat\n`);
    const nodes = ['nodes:', '  - {name: chat, kind: local, file: chat.svc}'];
    await writeFile(join(dir, 'fleet.yaml'), `${nodes.join('\n')}\n`);
    const { url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config-gateway'),
      env: { PATH: testPath() },
    });
    await writeFile(
      join(dir, 'fleet.yaml'),
      `gateway: {url: "${url}", tokenEnv: GW_TOKEN, name: lab}\n${nodes.join('\n')}\n`,
    );
    const started = await fetch(`${url}/v1/fleet/nodes/chat/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(started.status).toBe(200);
    const fleet = await eventually(
      async () =>
        (await (await fetch(`${url}/v1/fleet`, { headers: authorized() })).json()) as {
          nodes: { ready?: string; engine?: { port: number } }[];
        },
      (reply) => reply.nodes[0]?.ready === 'ready' && reply.nodes[0].engine !== undefined,
      'node chat ready, with its engine port',
      { timeoutMs: 60_000 },
    );
    const props = (await (
      await fetch(`http://127.0.0.1:${fleet.nodes[0]?.engine?.port ?? 0}/props`)
    ).json()) as { default_generation_settings: { n_ctx: number } };
    const context = props.default_generation_settings.n_ctx;
    expect(context).toBeGreaterThan(0);

    const run = await listModels(dir, ['--yes', '--', 'models', 'lab', '--verbose']);
    expect(listedModels(run.stdout).get('lab/chat')?.limit).toEqual({ context, output: 0 });
  }, 180_000);
});
