/**
 * A local node's request count, end to end: `svc up` runs the gateway with a local node whose
 * engine is the real llama-server (which exports no request counter), every request goes through
 * that gateway, and `svc fleet metrics` (REQUESTS) and `svc fleet dashboard` in a real terminal
 * (tmux; the detail's `requests`) show how many it sent there. Once the node is stopped, its row
 * shows no engine figures.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { startTmux } from '../support/screens/tmux.ts';
import { authorized, GATEWAY_TOKEN } from '../support/svc/gateway-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';

/** Requests sent, a fixed number: the figure the commands must show. */
const SENT = 5;

/** The cells of `svc fleet metrics`'s row for `node`, keyed by its header's titles. */
function metricsRow(table: string, node: string): Record<string, string> {
  const [header = '', ...rows] = table.trimEnd().split('\n');
  const titles = header.split(/ {2,}/);
  const row = rows.find((line) => line.startsWith(`${node} `)) ?? '';
  const cells = row.split(/ {2,}/);
  return Object.fromEntries(titles.map((title, index) => [title, cells[index] ?? '']));
}

function shellWord(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

describe("a local node's requests, counted by its gateway", () => {
  it('shows in svc fleet metrics and the dashboard; a stopped node shows no engine figures', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const port = await freePort();
    await writeFile(
      join(dir, 'a.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS alpha\nCONTEXT 256\n`,
    );
    const fleetPath = join(dir, 'fleet.yaml');
    await writeFile(
      fleetPath,
      [
        'gateway:',
        `  url: http://127.0.0.1:${port}`,
        '  tokenEnv: GATEWAY_TOKEN',
        'nodes:',
        '  - {name: a, kind: local, file: a.svc}',
        '',
      ].join('\n'),
    );
    const up = startProcess(SVC, ['up'], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_API_TOKEN: GATEWAY_TOKEN,
        SVC_CONFIG_DIR: join(dir, 'config'),
        SVC_LOG_LEVEL: 'warn',
      },
    });
    await up.waitFor(/local nodes a: engines run by this gateway/);

    // One after another: the first wakes the node, each is answered before the next is sent.
    for (let sent = 0; sent < SENT; sent += 1) {
      const reply = await chat(
        `http://127.0.0.1:${port}`,
        { model: 'alpha' },
        {
          headers: authorized(),
        },
      );
      expect(reply.status).toBe(200);
      await reply.text();
    }

    const fleetEnv = { GATEWAY_TOKEN, SVC_CONFIG_DIR: join(dir, 'config-fleet') };
    const metrics = await runSvc(['fleet', 'metrics'], { cwd: dir, env: fleetEnv });
    expect(metrics.status, metrics.stderr).toBe(0);
    expect(metricsRow(metrics.stdout, 'a')).toMatchObject({
      STATE: 'running',
      REQUESTS: String(SENT),
    });

    const env = `GATEWAY_TOKEN=${shellWord(GATEWAY_TOKEN)} SVC_CONFIG_DIR=${shellWord(join(dir, 'config-dash'))} HOME=${shellWord(dir)}`;
    const term = await startTmux(
      `env ${env} ${shellWord(process.execPath)} ${shellWord(SVC)} fleet dashboard -f ${shellWord(fleetPath)}; echo "svc exited $?"; read -r _`,
      120,
      30,
    );
    await term.waitFor(/> a +running/, 30_000);
    await term.keys('Enter');
    const detail = await term.waitFor(/requests \d+/, 30_000);
    expect(detail).toMatch(new RegExp(`requests ${SENT}\\b`));
    await term.keys('Escape', 'q');
    await term.waitFor(/svc exited 0/);

    const stopped = await runSvc(['fleet', 'stop', 'a'], { cwd: dir, env: fleetEnv });
    expect(stopped.status, stopped.stderr).toBe(0);
    const after = await runSvc(['fleet', 'metrics'], { cwd: dir, env: fleetEnv });
    expect(metricsRow(after.stdout, 'a')).toMatchObject({
      STATE: 'stopped',
      REQUESTS: '—',
      CPU: '—',
      RAM: '—',
    });

    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
  }, 240_000);
});
