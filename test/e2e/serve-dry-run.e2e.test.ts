/**
 * `svc serve --dry-run` as a user runs it: every way of naming a Svcfile (spec §1.1), presets
 * fetched relative to a URL, aliases, SVC_ALIAS, and the refusals of spec §7.
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';

import { afterEach, describe, expect, it } from 'vitest';

import { startTmux } from '../support/screens/tmux.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** Serves `files` by path on 127.0.0.1; anything else is 404. */
async function serveFiles(files: Record<string, string>): Promise<string> {
  const server = createServer((request, reply) => {
    const body = files[request.url ?? ''];
    if (body === undefined) {
      reply.writeHead(404).end('not found');
      return;
    }
    reply.writeHead(200, { 'content-type': 'text/plain' }).end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') {
    throw new Error('server has no port');
  }
  return `http://127.0.0.1:${address.port}`;
}

const llamaSvcfile = 'PROVIDER llamacpp\nMODEL org/model-GGUF:Q4_K_M\nALIAS friend\nCONTEXT 16k\n';
const llamaCommand = 'llama-server -hf org/model-GGUF:Q4_K_M --alias friend --ctx-size 16000\n';

describe('svc serve --dry-run: finding the Svcfile', () => {
  it('reads ./Svcfile with no target, prints the command on stdout and notes on stderr', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), llamaSvcfile);
    const result = await runSvc(['serve', '-n'], { cwd: dir });
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(llamaCommand);
    expect(result.stderr).toContain(`Serving org/model-GGUF:Q4_K_M from ${join(dir, 'Svcfile')}`);
  });

  it('reads a file path and a directory holding a Svcfile', async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'qwen'));
    await writeFile(join(dir, 'qwen', 'Svcfile'), llamaSvcfile);
    await writeFile(join(dir, 'other.svc'), 'PROVIDER omlx\n');
    expect((await runSvc(['serve', '--dry-run', 'qwen'], { cwd: dir })).stdout).toBe(llamaCommand);
    expect((await runSvc(['serve', '--dry-run', join(dir, 'other.svc')])).stdout).toBe(
      'omlx serve\n',
    );
  });

  it('fetches a Svcfile from a URL and resolves a relative PRESET against that URL', async () => {
    const base = await serveFiles({
      '/team/Svcfile': 'PROVIDER llamacpp\nALIAS qwen\nPRESET presets/llama.ini\n',
      '/team/presets/llama.ini': '[*]\nmmap = 1\n[qwen]\nhf = org/qwen\n[gemma]\nhf = org/gemma\n',
    });
    const result = await runSvc(['serve', '--dry-run', `${base}/team/Svcfile`]);
    expect(result.stderr).toContain(`Using preset ${base}/team/presets/llama.ini (model qwen)`);
    expect(result).toMatchObject({
      status: 0,
      stdout: 'llama-server --mmap --hf-repo org/qwen --alias qwen\n',
    });
  });

  it('appends Svcfile to a URL ending in a slash', async () => {
    const base = await serveFiles({ '/team/Svcfile': 'PROVIDER omlx\nPARALLEL 3\n' });
    expect((await runSvc(['serve', '-n', `${base}/team/`])).stdout).toBe(
      'omlx serve --max-concurrent-requests 3\n',
    );
  });

  it('fails clearly when the URL is not found', async () => {
    const base = await serveFiles({});
    const result = await runSvc(['serve', '-n', `${base}/missing/Svcfile`]);
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(`svc: fetching ${base}/missing/Svcfile: HTTP 404: not found\n`);
  });

  it('fails clearly when a relative preset is missing beside a local Svcfile', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER llamacpp\nPRESET nowhere.ini\n');
    // Run from another directory: the preset resolves against the Svcfile, not the cwd.
    const result = await runSvc(['serve', '-n', dir], { cwd: await tempDir() });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain(`reading preset ${join(dir, 'nowhere.ini')}`);
  });

  it('says where to look when there is no Svcfile', async () => {
    const result = await runSvc(['serve', '-n'], { cwd: await tempDir() });
    expect(result.status).toBe(2);
    expect(result.stderr).toMatch(/^svc: no Svcfile in .*SVC_ALIAS/);
  });
});

describe('svc alias and svc serve <alias>', () => {
  it('registers by the Svcfile ALIAS, lists, serves by name from anywhere, and deletes', async () => {
    const config = await tempDir();
    const project = await tempDir();
    await writeFile(join(project, 'Svcfile'), llamaSvcfile);
    const env = { SVC_CONFIG_DIR: config };

    const added = await runSvc(['alias', project], { env });
    expect(added).toMatchObject({
      status: 0,
      stdout: `alias "friend" → ${join(project, 'Svcfile')}\n`,
    });

    const listed = await runSvc(['alias', '--list'], { env });
    expect(listed.stdout).toBe(`friend  ${join(project, 'Svcfile')}\n`);

    const served = await runSvc(['serve', '-n', 'friend'], { env, cwd: await tempDir() });
    expect(served.stdout).toBe(llamaCommand);
    expect(served.stderr).toContain(`Using alias "friend" (${join(project, 'Svcfile')})`);

    const viaEnv = await runSvc(['serve', '-n'], {
      env: { ...env, SVC_ALIAS: 'friend' },
      cwd: await tempDir(),
    });
    expect(viaEnv.stdout).toBe(llamaCommand);
    expect(viaEnv.stderr).toContain('Using SVC_ALIAS "friend"');

    const deleted = await runSvc(['alias', '--delete', 'friend'], { env });
    expect(deleted.status).toBe(0);
    const gone = await runSvc(['serve', '-n', 'friend'], { env, cwd: await tempDir() });
    expect(gone.status).toBe(2);
  });

  it('refuses to re-point an alias without --force, then re-points with it', async () => {
    const config = await tempDir();
    const one = await tempDir();
    const two = await tempDir();
    await writeFile(join(one, 'Svcfile'), 'PROVIDER omlx\n');
    await writeFile(join(two, 'Svcfile'), 'PROVIDER omlx\nPARALLEL 2\n');
    const env = { SVC_CONFIG_DIR: config };
    expect((await runSvc(['alias', one, '-n', 'mlx'], { env })).status).toBe(0);
    const refused = await runSvc(['alias', two, '-n', 'mlx'], { env });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toContain('--force');
    expect((await runSvc(['alias', two, '-n', 'mlx', '--force'], { env })).status).toBe(0);
    expect((await runSvc(['serve', '-n', 'mlx'], { env, cwd: config })).stdout).toBe(
      'omlx serve --max-concurrent-requests 2\n',
    );
  });

  it('prefers an existing path over an alias of the same spelling, saying so', async () => {
    const config = await tempDir();
    const aliased = await tempDir();
    const cwd = await tempDir();
    await writeFile(join(aliased, 'Svcfile'), 'PROVIDER omlx\n');
    await mkdir(join(cwd, 'mlx'));
    await writeFile(join(cwd, 'mlx', 'Svcfile'), 'PROVIDER omlx\nPARALLEL 5\n');
    const env = { SVC_CONFIG_DIR: config };
    await runSvc(['alias', aliased, '-n', 'mlx'], { env });
    const result = await runSvc(['serve', '-n', 'mlx'], { env, cwd });
    expect(result.stdout).toBe('omlx serve --max-concurrent-requests 5\n');
    expect(result.stderr).toContain(
      'names both a path here and a registered alias; using the path',
    );
  });

  it('refuses an SVC_ALIAS that names no registered alias', async () => {
    const result = await runSvc(['serve', '-n'], {
      env: { SVC_CONFIG_DIR: await tempDir(), SVC_ALIAS: 'nope' },
      cwd: await tempDir(),
    });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      'svc: SVC_ALIAS names "nope", which is not a registered alias: see svc alias --list, or unset SVC_ALIAS\n',
    );
  });
});

describe('svc serve refusals (spec §7)', () => {
  it('refuses a provider svc does not run (the four engines and command), naming the file and line', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER ollama\nMODEL llama3\n');
    const result = await runSvc(['serve', '-n'], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toBe(
      `svc: ${join(dir, 'Svcfile')}:1: PROVIDER "ollama" cannot be served: svc serve runs llamacpp, omlx, vllm, mtplx, command\n`,
    );
  });

  it('refuses several preset sections with no ALIAS, listing them', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER llamacpp\nPRESET p.ini\n');
    await writeFile(join(dir, 'p.ini'), '[a]\nhf = o/a\n[b]\nhf = o/b\n');
    const result = await runSvc(['serve', '-n'], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('(a, b); set ALIAS');
  });

  it('reports every Svcfile problem at once with its line', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'Svcfile'),
      'PROVIDER llamacpp\nCONTEXT lots\nPARALLEL 0\nFLAVOUR x\n',
    );
    const result = await runSvc(['serve', '-n'], { cwd: dir });
    expect(result.status).toBe(2);
    const file = join(dir, 'Svcfile');
    expect(result.stderr).toContain(`${file}:2: CONTEXT "lots"`);
    expect(result.stderr).toContain(`${file}:3: PARALLEL "0"`);
    expect(result.stderr).toContain(`${file}:4: unknown keyword "FLAVOUR"`);
  });

  it('says what to set when the model is missing', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER vllm\n');
    const result = await runSvc(['serve', '-n'], { cwd: dir });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain('needs a MODEL');
  });

  it('refuses an unknown flag and a second target', async () => {
    expect((await runSvc(['serve', '-n', '--bogus'])).stderr).toMatch(
      /^svc: .*--bogus.*see svc serve --help/,
    );
    expect((await runSvc(['serve', '-n', 'a', 'b'])).stderr).toBe(
      'svc: unexpected argument "b" (see svc serve --help)\n',
    );
  });

  it('shows per-command help', async () => {
    const result = await runSvc(['serve', '--help']);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain('-n, --dry-run');
  });
});

describe('svc serve --dry-run prints exactly what the same invocation runs (docs/design.md D3)', () => {
  it('on a terminal includes --metrics, as the serve that shows the view would', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'Svcfile'), llamaSvcfile);
    const quote = (text: string): string => `'${text.replaceAll("'", `'\\''`)}'`;
    const term = await startTmux(
      `cd ${quote(dir)} && env SVC_ALIAS= ${quote(process.execPath)} ${quote(SVC)} serve -n; echo "svc exited $?"`,
      200,
      10,
    );
    const screen = await term.waitFor(/svc exited \d+/);
    expect(screen).toContain(`${llamaCommand.trimEnd()} --metrics`);
    expect(screen).toContain('svc exited 0');
    // Off a terminal the same dry run has no view and so no --metrics.
    expect((await runSvc(['serve', '-n'], { cwd: dir })).stdout).toBe(llamaCommand);
  });

  it('prints the binary that would be executed when it is not the bare name on PATH', async () => {
    const dir = await tempDir();
    const bin = join(dir, 'bin');
    await mkdir(bin);
    // oMLX is found as omlx-cli too: that file is what would run, so that is what is printed.
    await writeFile(join(bin, 'omlx-cli'), '#!/bin/sh\nexit 0\n');
    await chmod(join(bin, 'omlx-cli'), 0o755);
    await writeFile(join(dir, 'Svcfile'), 'PROVIDER omlx\n');
    const result = await runSvc(['serve', '-n'], {
      cwd: dir,
      env: { PATH: `${bin}:/usr/bin:/bin` },
    });
    expect(result.stdout).toBe(`${join(bin, 'omlx-cli')} serve\n`);
  });
});
