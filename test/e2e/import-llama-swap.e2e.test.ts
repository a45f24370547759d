/**
 * `svc import llama-swap` as a user runs it (docs/design.md D27): --dry-run prints the files and
 * writes none, an import writes them and `svc serve --dry-run` runs the imported model's engine
 * command with the original cmd's flags, a second import refuses (exit 2) naming the files it would
 * overwrite and changes nothing, and --force replaces them.
 */
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { runSvc, tempDir } from '../support/svc/svc.ts';

const CONFIG = [
  'globalTTL: 600',
  'apiKeys: ["sk-never-shown"]',
  'macros:',
  '  "server": llama-server --port ${PORT}',
  'models:',
  '  "qwen":',
  '    cmd: |',
  '      ${server} -hf unsloth/Qwen3-8B-GGUF:Q4_K_M',
  '      -c 16384 -np 2 -ngl 99 --jinja',
  '    ttl: 120',
  '  "docker-llama":',
  '    cmd: docker run --rm -p ${PORT}:8080 ghcr.io/ggml-org/llama.cpp:server',
  '    cmdStop: docker stop docker-llama',
  '',
].join('\n');

async function importDir(): Promise<string> {
  const dir = await tempDir();
  await writeFile(join(dir, 'config.yaml'), CONFIG);
  return dir;
}

describe('svc import llama-swap', () => {
  it('prints the files with --dry-run, what it could not carry, and writes nothing', async () => {
    const dir = await importDir();
    const result = await runSvc(
      ['import', 'llama-swap', 'config.yaml', '--out', 'svc', '--dry-run'],
      {
        cwd: dir,
      },
    );
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(
      [
        '--- svc/qwen/Svcfile',
        '# llama-swap model "qwen" from config.yaml, imported by svc import llama-swap',
        'PROVIDER llamacpp',
        'MODEL    unsloth/Qwen3-8B-GGUF:Q4_K_M',
        'ALIAS    qwen',
        'CONTEXT  8192',
        'PARALLEL 2',
        'BASEURL  127.0.0.1:5801',
        'PRESET   preset.ini',
        '',
      ].join('\n'),
    );
    // docs/design.md D31: a container runs as PROVIDER command, on startPort's first port.
    expect(result.stdout).toContain(
      [
        '--- svc/docker-llama/Svcfile',
        '# llama-swap model "docker-llama" from config.yaml, imported by svc import llama-swap',
        'PROVIDER command',
        'ALIAS    docker-llama',
        'COMMAND  docker run --rm -p ${PORT}:8080 ghcr.io/ggml-org/llama.cpp:server',
        'STOP     docker stop docker-llama',
        'BASEURL  127.0.0.1:5800',
        '',
      ].join('\n'),
    );
    expect(result.stdout).toContain('--- svc/.env\nGATEWAY_TOKEN=<generated when written>\n');
    expect(result.stdout).toContain('--- svc/fleet.yaml\n');
    expect(result.stdout).toContain(
      'gateway:\n  url: http://127.0.0.1:8080\n  tokenEnv: GATEWAY_TOKEN\n',
    );
    expect(result.stdout).toContain(
      '  - name: qwen\n    kind: local\n    file: qwen/Svcfile\n    group: default\n    idleStop: 2m\n',
    );
    expect(result.stdout).not.toContain('sk-never-shown');
    expect(existsSync(join(dir, 'svc'))).toBe(false);
  });

  it("writes the files, whose Svcfile runs the original cmd's flags", async () => {
    const dir = await importDir();
    const result = await runSvc(['import', 'llama-swap', 'config.yaml'], { cwd: dir });
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(
      /^wrote fleet\.yaml\nwrote \.env\nwrote qwen\/Svcfile\nwrote qwen\/preset\.ini\nwrote docker-llama\/Svcfile\nnot carried over:\n/,
    );
    // The gateway token is generated into .env only, never printed.
    const token = /^GATEWAY_TOKEN=([0-9a-f]{64})\n$/.exec(
      await readFile(join(dir, '.env'), 'utf8'),
    )?.[1];
    expect(token).toBeDefined();
    expect(result.stdout).not.toContain(token);
    const serve = await runSvc(['serve', '--dry-run', 'qwen'], { cwd: dir });
    expect(serve).toMatchObject({
      status: 0,
      stdout:
        'llama-server --n-gpu-layers 99 --jinja -hf unsloth/Qwen3-8B-GGUF:Q4_K_M --alias qwen --ctx-size 16384 --parallel 2 --host 127.0.0.1 --port 5801\n',
    });
  });

  it('refuses to overwrite without --force, naming the files, and replaces them with it', async () => {
    const dir = await importDir();
    expect((await runSvc(['import', 'llama-swap', 'config.yaml'], { cwd: dir })).status).toBe(0);
    await writeFile(join(dir, 'qwen', 'Svcfile'), 'PROVIDER vllm\n');

    const refused = await runSvc(['import', 'llama-swap', 'config.yaml'], { cwd: dir });
    expect(refused).toMatchObject({ status: 2, stdout: '' });
    expect(refused.stderr).toBe(
      `svc: the import would overwrite ${join(dir, 'fleet.yaml')}, ${join(dir, '.env')}, ${join(dir, 'qwen', 'Svcfile')}, ${join(dir, 'qwen', 'preset.ini')}, ${join(dir, 'docker-llama', 'Svcfile')}: pass --force to replace them, or --out <dir> for another directory (nothing was written)\n`,
    );
    expect(await readFile(join(dir, 'qwen', 'Svcfile'), 'utf8')).toBe('PROVIDER vllm\n');

    const forced = await runSvc(['import', 'llama-swap', 'config.yaml', '--force'], { cwd: dir });
    expect(forced.status).toBe(0);
    expect(await readFile(join(dir, 'qwen', 'Svcfile'), 'utf8')).toContain('PROVIDER llamacpp\n');
  });

  it('refuses a configuration it cannot read, naming the line and field', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'bad.yaml'), 'models:\n  m:\n    cmd: llama-server ${nope}\n');
    const result = await runSvc(['import', 'llama-swap', 'bad.yaml'], { cwd: dir });
    expect(result).toMatchObject({
      status: 2,
      stderr: 'svc: bad.yaml line 3 (models.m.cmd): ${nope} is not a macro defined before it\n',
    });
  });
});
