/**
 * A llama-swap configuration with every key llama-swap documents, current and earlier
 * (test/fixtures/llama-swap/every-key.yaml), imports with exit 0 and serves through `svc up`
 * (docs/import.md): the real llama-server under its useModelName, by its id, its alias and its
 * setParamsByID name, each with the body its filters make (setParams' max_tokens, the variant's
 * own after it: the engine's own usage says so), concurrencyLimit as the node's slots, a preload
 * started with the gateway, and the unlisted stand-in program with its cmdStop, answering a form
 * byte for byte. llama-swap's earlier format imports with exit 0 too. No key is taken for a
 * misspelling, and no key from the environment is printed.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { arrivedIntact, encodeForm, sendForm } from '../support/http/form.ts';
import { freeConsecutivePorts } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { localNodeFile } from '../support/svc/gateway-fleet.ts';
import { upImported } from '../support/svc/imported-up.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures');
const SERVER = join(FIXTURES, 'command-server.mjs');
const KEYS = { API_KEY_1: 'sk-every-key-api', PEER_KEY: 'sk-every-key-peer' };

describe('every key llama-swap documents', () => {
  it('imports in its earlier format with exit 0', async () => {
    const dir = await tempDir();
    const imported = await runSvc(
      ['import', 'llama-swap', join(FIXTURES, 'llama-swap', 'earlier-format.yaml'), '--out', dir],
      { cwd: dir },
    );
    expect(imported.status).toBe(0);
    expect(imported.stdout).not.toContain('not a llama-swap key');
  });

  it('imports with exit 0, then serves every model through svc up', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    // chat and whisper take ${PORT}: startPort and the one after it, in the order of their ids.
    const startPort = await freeConsecutivePorts(2);
    const config = await readFile(join(FIXTURES, 'llama-swap', 'every-key.yaml'), 'utf8');
    await writeFile(
      join(dir, 'config.yaml'),
      config.replace('startPort: 5800', `startPort: ${startPort}`),
    );
    const imported = await runSvc(['import', 'llama-swap', 'config.yaml', '--out', 'svc'], {
      cwd: dir,
      env: { SVC_TEST_MODEL: model, SVC_TEST_SERVER: SERVER, ...KEYS },
    });
    expect(imported.status).toBe(0);
    expect(imported.stdout).not.toContain('not a llama-swap key');
    for (const key of Object.values(KEYS)) {
      expect(imported.stdout + imported.stderr).not.toContain(key);
    }
    const out = join(dir, 'svc');
    const { up, url, token, headers, fleet } = await upImported(
      out,
      join(dir, 'config'),
      'chat, whisper',
    );
    expect(fleet).toContain('    slots: 2\n');
    // Past any end of text, the engine's usage counts what the body asked for.
    const long = { max_tokens: 8, ignore_eos: true };
    for (const [name, tokens] of [
      ['chat', 2],
      ['gpt-4o-mini', 2],
      ['chat:one', 1],
    ] as const) {
      const reply = await chat(url, { model: name, ...long }, { headers });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-svc-node')).toBe('chat');
      expect(await reply.json()).toMatchObject({ usage: { completion_tokens: tokens } });
    }
    const listed = (await (await fetch(`${url}/v1/models`, { headers })).json()) as {
      data: { id: string }[];
    };
    const ids = listed.data.map((entry) => entry.id);
    expect(ids).toEqual(expect.arrayContaining(['chat', 'gpt-4o-mini', 'chat:one']));
    expect(ids).not.toContain('whisper');
    // Unlisted, still served: the stand-in takes a transcription form, byte for byte.
    const form = await encodeForm([
      ['model', 'whisper'],
      ['file', new Blob([randomBytes(1024 * 1024)], { type: 'audio/wav' })],
    ]);
    const transcribed = await sendForm(url, headers, form);
    expect(transcribed.status).toBe(200);
    expect(await transcribed.json()).toEqual(arrivedIntact(form, 'whisper'));
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
    expect(up.output()).not.toContain(token);
    const log = await readFile(localNodeFile(up, 'whisper', 'engine.log'), 'utf8');
    expect(log).toContain('command-server: stopped by SIGINT');
  });
});
