/**
 * Broken local nodes show at start-up (docs/design.md D27), not at their first request: a
 * misspelt Svcfile keyword and a missing model file are said by `svc up` as it starts (the
 * message a request gets, with file and line), carried as `problems` in `/v1/fleet`, noted by
 * `svc fleet status` and shown on the fleet page in Chromium, while the good node beside them
 * serves a real llama-server's reply.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { openBrowser } from '../support/screens/browser.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';

// page.waitForFunction's callback runs in Chromium: the one browser global it touches.
declare const document: {
  querySelector(selector: string): { readonly textContent: string | null } | null;
};

describe('broken local nodes at start-up', () => {
  it('are said at once, listed in /v1/fleet, svc fleet status and the page; the rest serve', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const port = await freePort();
    await writeFile(join(dir, 'good.svc'), `PROVIDER llamacpp\nMODEL ${model}\nALIAS good\n`);
    await writeFile(
      join(dir, 'typo.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS chat\nCONTEXTT 8192\n`,
    );
    await writeFile(
      join(dir, 'nomodel.svc'),
      `PROVIDER llamacpp\nMODEL ${join(dir, 'missing.gguf')}\nALIAS gone\n`,
    );
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'gateway:',
        `  url: http://127.0.0.1:${port}`,
        'nodes:',
        '  - {name: good, kind: local, file: good.svc}',
        '  - {name: typo, kind: local, file: typo.svc}',
        '  - {name: nomodel, kind: local, file: nomodel.svc}',
        '',
      ].join('\n'),
    );
    const env = { SVC_API_TOKEN: '', SVC_CONFIG_DIR: join(dir, 'config') };
    const up = startProcess(SVC, ['up'], {
      cwd: dir,
      env: { ...process.env, PATH: testPath(), ...env, SVC_LOG_LEVEL: 'warn' },
    });
    const typo = `${join(dir, 'typo.svc')}:4: unknown keyword "CONTEXTT"`;
    const missing = `${join(dir, 'nomodel.svc')}: the model file ${join(dir, 'missing.gguf')} does not exist`;
    await up.waitFor(/local node typo cannot start: .*\n/);
    await up.waitFor(/local node nomodel cannot start: .*\n/);
    expect(up.stdout()).toContain(`local node typo cannot start: ${typo}`);
    expect(up.stdout()).toContain(`local node nomodel cannot start: ${missing}`);
    expect(up.stdout()).not.toContain('local node good');

    const url = `http://127.0.0.1:${port}`;
    const fleet = (await (await fetch(`${url}/v1/fleet`)).json()) as {
      nodes: { name: string; state: string; problems?: string[] }[];
    };
    const byName = new Map(fleet.nodes.map((node) => [node.name, node]));
    expect(byName.get('good')).not.toHaveProperty('problems');
    expect(byName.get('typo')?.problems).toEqual([expect.stringContaining(typo)]);
    expect(byName.get('nomodel')).toMatchObject({ state: 'idle', problems: [missing] });

    const status = await runSvc(['fleet', 'status'], { cwd: dir, env });
    expect(status.status).toBe(0);
    expect(status.stdout).toContain(`note: typo: ${typo}`);
    expect(status.stdout).toContain(`note: nomodel: ${missing}`);

    // The good node still serves: a real reply from llama-server through the gateway.
    const reply = await chat(url, { model: 'good' });
    expect(reply.status).toBe(200);

    const browser = await openBrowser();
    const page = await browser.newPage();
    await page.goto(`${url}/`, { waitUntil: 'load' });
    const selector = '[data-node="typo"] [data-field="problems"]';
    await page.waitForFunction(
      (wanted) => document.querySelector(wanted) !== null,
      { timeout: 60_000 },
      selector,
    );
    const shown = await page.evaluate(
      (wanted) => document.querySelector(wanted)?.textContent ?? '',
      selector,
    );
    expect(shown).toContain(typo);

    process.kill(up.pid, 'SIGINT');
    expect(await up.exited()).toBe(0);
    expect(up.stdout()).toMatch(/svc gateway stopped\n$/);
  });
});
