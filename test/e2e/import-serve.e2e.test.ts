/**
 * An imported llama-swap configuration serves at once (docs/import.md): llama-swap's example
 * layout, top-level `groups` whose members it does not all define (written here from the facts
 * of its format), a llama-server model on `${PORT}` numbered from `startPort`, and a program that
 * is no engine svc knows (our stand-in server) with its `cmdStop`. The import exits 0; `svc up`
 * in the output directory finds the gateway and its generated token in the files the import
 * wrote, and answers each model through the real llama-server and the stand-in, an alias and a
 * `setParamsByID` name (docs/design.md D31) through the same engine with their own body, and a
 * transcription form to the stand-in byte for byte; the groups' exclusive and persistent flags
 * are carried, and the stand-in's exclusive group stops the llama-server first.
 */
import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { arrivedIntact, encodeForm, sendForm } from '../support/http/form.ts';
import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { localNodeFile } from '../support/svc/gateway-fleet.ts';
import { upImported } from '../support/svc/imported-up.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const SERVER = join(REPO_ROOT, 'test', 'fixtures', 'command-server.mjs');

describe('an imported llama-swap configuration', () => {
  it('imports with groups naming undefined models, then serves every model through svc up', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const [startPort, whisperPort] = [await freePort(), await freePort()];
    await writeFile(
      join(dir, 'config.yaml'),
      [
        'healthCheckTimeout: 60',
        `startPort: ${startPort}`,
        'models:',
        '  "tiny":',
        `    cmd: llama-server --port \${PORT} -m ${model} -c 256 -c 512`,
        '    aliases: [gpt-4o-mini]',
        '    filters:',
        '      stripParams: "temperature"',
        '      setParamsByID: {"tiny-one": {max_tokens: 1}}',
        '  "whisper":',
        `    cmd: node ${SERVER} --port ${whisperPort} --name whisper`,
        `    proxy: http://127.0.0.1:${whisperPort}`,
        `    cmdStop: node ${SERVER} --stop \${PID}`,
        '    checkEndpoint: /health',
        'groups:',
        '  "group1":',
        '    swap: true',
        '    exclusive: true',
        '    members: ["llama", "tiny"]',
        '  "forever":',
        '    persistent: true',
        '    swapp: false',
        '    members: ["whisper", "qwen-unlisted"]',
        '',
      ].join('\n'),
    );
    const imported = await runSvc(['import', 'llama-swap', 'config.yaml', '--out', 'svc'], {
      cwd: dir,
    });
    expect(imported.status).toBe(0);
    expect(imported.stdout).toContain('    groups.group1.members llama: no model has that id\n');
    expect(imported.stdout).toContain(
      '    groups.forever.swapp: not a llama-swap key: did you mean swap?\n',
    );
    // docs/design.md D31: aliases and filters are carried; only the repeated flag is listed.
    expect(imported.stdout).toContain(
      '  model "tiny":\n    -c 256: ctx-size is given again later in the cmd, and llama-server uses the last value\n',
    );
    expect(imported.stdout).not.toMatch(/aliases|filters/);
    const out = join(dir, 'svc');
    expect(await readFile(join(out, 'tiny', 'Svcfile'), 'utf8')).toContain(
      `CONTEXT  512\nBASEURL  127.0.0.1:${startPort}\n`,
    );
    const { up, url, token, headers, fleet } = await upImported(
      out,
      join(dir, 'config'),
      'tiny, whisper',
    );
    const tiny = await chat(url, { model: 'tiny' }, { headers });
    expect(tiny.status).toBe(200);
    expect(await tiny.json()).toMatchObject({ object: 'chat.completion' });
    expect((await fetch(`http://127.0.0.1:${startPort}/health`)).status).toBe(200);
    // The alias reaches the same engine; the setParamsByID name gets its max_tokens: 1 (the
    // engine's own usage says so, past any end of text).
    const long = { max_tokens: 4, ignore_eos: true };
    const alias = await chat(url, { model: 'gpt-4o-mini', ...long }, { headers });
    expect(alias.headers.get('x-svc-node')).toBe('tiny');
    expect(await alias.json()).toMatchObject({ usage: { completion_tokens: 4 } });
    const one = await chat(url, { model: 'tiny-one', ...long }, { headers });
    expect(one.headers.get('x-svc-node')).toBe('tiny');
    expect(await one.json()).toMatchObject({ usage: { completion_tokens: 1 } });
    const whisper = await chat(url, { model: 'whisper' }, { headers });
    expect(whisper.status).toBe(200);
    expect(await whisper.json()).toMatchObject({
      choices: [{ message: { content: 'served by whisper' } }],
    });
    // The imported PROVIDER command node takes a transcription form, byte for byte.
    const audio = new Blob([randomBytes(2 * 1024 * 1024)], { type: 'audio/wav' });
    const form = await encodeForm([
      ['model', 'whisper'],
      ['file', audio],
    ]);
    const transcribed = await sendForm(url, headers, form);
    expect(transcribed.status).toBe(200);
    expect(await transcribed.json()).toEqual(arrivedIntact(form, 'whisper'));
    // llama-swap's groups carried (docs/design.md D31), exclusive by llama-swap's default: the
    // whisper group's start stopped tiny's engine first, and its persistent group stays.
    expect(fleet).toContain('  group1:\n    max: 1\n    minResidency: 0s\n    exclusive: true\n');
    expect(fleet).toContain(
      '  forever:\n    max: 1\n    minResidency: 0s\n    exclusive: true\n    persistent: true\n',
    );
    await expect(fetch(`http://127.0.0.1:${startPort}/health`)).rejects.toThrow();
    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
    expect(up.output()).not.toContain(token);
    const log = await readFile(localNodeFile(up, 'whisper', 'engine.log'), 'utf8');
    expect(log).toContain('command-server: stopped by SIGINT');
  });
});
