/**
 * What the gateway prints at start-up and shut-down: the hint to name its address in the fleet
 * file's `gateway` section only when the section is missing or names another address, and one
 * clear last line once it has stopped (a signal shutdown exits 0, docs/design.md D17).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { freePort } from '../support/http/net.ts';
import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { tempDir } from '../support/processes/temp-dir.ts';

const SVC = join(REPO_ROOT, 'dist', 'cli.js');
const NODE = ['nodes:', '  - name: a', '    host: 127.0.0.1', '    port: 1', ''];

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
