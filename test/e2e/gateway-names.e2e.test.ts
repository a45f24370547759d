/**
 * Names and presets end to end (docs/design.md D31): the built `svc gateway` in front of two real
 * llama-server engines it supervises. An alias reaches its node's engine, a variant reaches the
 * node of its model with its `set` applied (the engine's own usage proves the body: a variant
 * setting `max_tokens: 1` gets one completion token where the same request by the served name
 * gets four), a node's `params` reach its engine, `/v1/models` lists aliases and variants and
 * hides an unlisted node, and a fleet whose two nodes of different models claim one alias is
 * refused at start naming both.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { authorized, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

let dir: string;
let url: string;

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  await writeTinyModel(join(dir, 'other.gguf'));
  await writeFile(
    join(dir, 'a.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS alpha\nCONTEXT 256\n`,
  );
  await writeFile(
    join(dir, 'b.svc'),
    `PROVIDER llamacpp\nMODEL ${model}\nALIAS beta\nCONTEXT 256\n`,
  );
  await writeFile(
    join(dir, 'other.svc'),
    `PROVIDER llamacpp\nMODEL ${join(dir, 'other.gguf')}\nALIAS other\nCONTEXT 256\n`,
  );
  await writeFile(
    join(dir, 'fleet.yaml'),
    [
      'nodes:',
      '  - {name: a, kind: local, file: a.svc, aliases: [gpt-4o]}',
      '  - name: b',
      '    kind: local',
      '    file: b.svc',
      '    aliases: [hidden-name]',
      '    unlisted: true',
      '    params: {set: {max_tokens: 2}}',
      'variants:',
      '  fast: {model: gpt-4o, set: {max_tokens: 1}}',
      '',
    ].join('\n'),
  );
  ({ url } = await sharedByFile(() =>
    startTestGateway({ cwd: dir, configDir: join(dir, 'config'), env: { PATH: testPath() } }),
  ));
});

/** A chat asking for four tokens past any end of text: the node that answered and its usage. */
async function answered(
  model: string,
): Promise<{ status: number; node: string | null; tokens: number }> {
  const reply = await chat(
    url,
    { model, max_tokens: 4, ignore_eos: true },
    { headers: authorized() },
  );
  const body = (await reply.json()) as { usage?: { completion_tokens?: number } };
  return {
    status: reply.status,
    node: reply.headers.get('x-svc-node'),
    tokens: body.usage?.completion_tokens ?? -1,
  };
}

describe('aliases, variants and params through the gateway', () => {
  it('answers an alias and a variant on the right engine with the right body', async () => {
    expect(await answered('alpha')).toEqual({ status: 200, node: 'a', tokens: 4 });
    expect(await answered('gpt-4o')).toEqual({ status: 200, node: 'a', tokens: 4 });
    expect(await answered('fast')).toEqual({ status: 200, node: 'a', tokens: 1 });
    // Node b's params set max_tokens: 2 on every request it serves, by any of its names.
    expect(await answered('hidden-name')).toEqual({ status: 200, node: 'b', tokens: 2 });
    expect(await answered('beta')).toEqual({ status: 200, node: 'b', tokens: 2 });
  });

  it('routes an alias and a variant to their node in GET /v1/fleet/route', async () => {
    for (const model of ['gpt-4o', 'fast']) {
      const reply = await fetch(`${url}/v1/fleet/route?model=${model}`, { headers: authorized() });
      expect(await reply.json()).toMatchObject({ model, action: 'serve', node: 'a' });
    }
  });

  it('lists aliases and variants in /v1/models and hides the unlisted node', async () => {
    const reply = await fetch(`${url}/v1/models`, { headers: authorized() });
    const { data } = (await reply.json()) as { data: { id: string }[] };
    const ids = data.map((entry) => entry.id);
    expect(ids).toEqual(expect.arrayContaining(['alpha', 'gpt-4o', 'fast']));
    expect(ids).not.toContain('beta');
    expect(ids).not.toContain('hidden-name');
  });

  it('refuses at start two nodes of different models answering to one alias, naming both', async () => {
    const clash = join(dir, 'clash');
    await writeFile(
      join(dir, 'clash.yaml'),
      [
        'nodes:',
        '  - {name: a, kind: local, file: a.svc, aliases: [chat]}',
        '  - {name: o, kind: local, file: other.svc, aliases: [chat]}',
        '',
      ].join('\n'),
    );
    const run = await runSvc(
      ['gateway', '-f', join(dir, 'clash.yaml'), '--listen', '127.0.0.1:0'],
      {
        cwd: dir,
        env: { PATH: testPath(), SVC_API_TOKEN: 'clash-token', SVC_CONFIG_DIR: clash },
      },
    );
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain(
      'nodes "a" and "o" both answer to "chat" but do not serve the same model',
    );
  });
});
