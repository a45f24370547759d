/**
 * What the gateway prints at start-up and shut-down: the hint to name its address in the fleet
 * file's `gateway` section only when the section is missing or names another address, and one
 * clear last line once it has stopped (a signal shutdown exits 0, docs/design.md D17). A gateway
 * started before its daemon serves a request sent as soon as that daemon listens, though its
 * first status round found the daemon silent (docs/design.md D33).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { freePort } from '../support/http/net.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { tempDir } from '../support/processes/temp-dir.ts';
import {
  authorized,
  ENGINE_KEY,
  NODE_TOKEN,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { chat } from '../support/svc/scale-to-zero.ts';
import { eventually } from '../support/time/eventually.ts';

const SVC = join(REPO_ROOT, 'dist', 'cli.js');
const NODE = ['nodes:', '  - name: a', '    host: 127.0.0.1', '    port: 1', ''];

/** The node's state as the gateway's /v1/fleet reports it. */
async function fleetState(url: string): Promise<string | undefined> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  const body = (await reply.json()) as { nodes: { name: string; state: string }[] };
  return body.nodes[0]?.state;
}

async function gatewayOutput(section: string[], port: number): Promise<string> {
  const dir = await tempDir();
  const fleet = join(dir, 'fleet.yaml');
  await writeFile(fleet, [...section, ...NODE].join('\n'));
  const gateway = startProcess(SVC, ['gateway', '-f', fleet, '--listen', `127.0.0.1:${port}`], {
    env: { ...process.env, SVC_LOG_LEVEL: 'warn', SVC_API_TOKEN: '', SVC_CONFIG_DIR: dir },
  });
  await gateway.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+\n/);
  process.kill(gateway.pid, 'SIGTERM');
  expect(await gateway.exited()).toBe(0);
  return gateway.stdout();
}

describe('gateway start-up message', () => {
  it('asks for the address only when the gateway section is missing or names another', async () => {
    const port = await freePort();
    const listening = `listening on http://127.0.0.1:${port}\n`;

    const missing = await gatewayOutput([], port);
    expect(missing).toContain(listening);
    expect(missing).toContain(`Name http://127.0.0.1:${port} in the fleet file's gateway section`);

    const other = await gatewayOutput(['gateway:', '  url: http://127.0.0.1:1', ''], port);
    expect(other).toContain(
      `The fleet file's gateway section names http://127.0.0.1:1, but this gateway listens on http://127.0.0.1:${port}: name that there`,
    );

    const same = await gatewayOutput(['gateway:', `  url: http://127.0.0.1:${port}`, ''], port);
    expect(same).toMatch(new RegExp(`^svc gateway for \\S+ ${listening}svc gateway stopped\\n$`));
  });
});

describe('a gateway started before its daemon', () => {
  it('serves the first request once the daemon answers, not 502 from its first round', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const daemonPort = await freePort();
    await writeFile(
      join(dir, 'late.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'nodes:',
        '  - name: late',
        '    host: 127.0.0.1',
        `    port: ${daemonPort}`,
        '    tokenEnv: NODE_TOKEN',
        '    engineTokenEnv: ENGINE_KEY',
        '    file: late.svc',
        '    engine: {host: 127.0.0.1}',
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
    const { url } = await startTestGateway({ cwd: dir, configDir: join(dir, 'config') });
    // Its first status round found no daemon listening.
    await eventually(
      () => fleetState(url),
      (state) => state === 'unreachable',
      'late unreachable',
    );

    // The daemon comes up at its own default sampling interval; a request as soon as it listens.
    const daemon = startProcess(SVC, ['daemon', '--api-addr', `127.0.0.1:${daemonPort}`], {
      cwd: dir,
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_CONFIG_DIR: join(dir, 'config-daemon'),
        SVC_API_TOKEN: NODE_TOKEN,
        SVC_LOG_LEVEL: 'info',
      },
    });
    await daemon.waitFor(/listening on http:\/\/127\.0\.0\.1:\d+/);
    expect(await chat(url, 'tiny')).toBe('200 chat.completion');
  });
});
