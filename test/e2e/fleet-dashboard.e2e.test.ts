/**
 * `svc fleet dashboard` in a real terminal (tmux), against a real `svc daemon` running the real
 * llama-server on the generated model and a node whose token variable is set nowhere: a row per
 * node, s starts the selected node, enter opens its detail with the engine log, esc goes back, x
 * stops it, and q quits with status 0. No line is wider than the screen.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { startTmux, svcInPane } from '../support/screens/tmux.ts';
import { freePort, startTestDaemon } from '../support/svc/daemon.ts';
import { ENGINE_KEY, NODE_TOKEN } from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';

const COLUMNS = 120;

function widest(screen: string): number {
  // Code points: the screen holds box-drawing and block characters, each one column wide.
  return Math.max(...screen.split('\n').map((line) => Array.from(line).length));
}

describe('svc fleet dashboard in a real terminal', () => {
  it('lists the nodes, starts one, shows its log, stops it and quits on q', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const gpu = await startTestDaemon({
      configDir: join(dir, 'config-gpu'),
      token: NODE_TOKEN,
      env: { SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
    await writeFile(
      join(dir, 'gpu.svc'),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny\nBASEURL 127.0.0.1:${await freePort()}\n`,
    );
    const fleetPath = join(dir, 'fleet.yaml');
    await writeFile(
      fleetPath,
      [
        'nodes:',
        '  - name: gpu',
        '    host: 127.0.0.1',
        `    port: ${new URL(gpu.url).port}`,
        '    tokenEnv: NODE_TOKEN',
        '    engineTokenEnv: ENGINE_KEY',
        '    file: gpu.svc',
        '  - name: locked',
        '    host: 127.0.0.1',
        '    port: 1',
        '    tokenEnv: LOCKED_TOKEN_UNSET',
        '',
      ].join('\n'),
    );
    await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);

    const term = await startTmux(
      svcInPane(['fleet', 'dashboard', '-f', fleetPath], {
        SVC_CONFIG_DIR: join(dir, 'config'),
        HOME: dir,
      }),
      COLUMNS,
      30,
    );
    let screen = await term.waitFor(/> gpu +idle[\s\S]*locked +config-error/, 30_000);
    expect(screen).toContain(`svc fleet dashboard · ${fleetPath}`);
    expect(screen).toMatch(/NODE +STATE +READY +BUSY +MODEL +LAST ACTIVE +TOK\/S +GPU +MEM/);
    expect(screen).toContain('↑↓ select   enter detail   s start   x stop   f force stop   q quit');
    expect(widest(screen)).toBeLessThanOrEqual(COLUMNS);

    // s starts the selected node, as svc fleet start does; the row turns running, then ready.
    await term.keys('s');
    screen = await term.waitFor(/> gpu +running +ready +\S+ +tiny /, 60_000);
    expect(screen).toContain('gpu  running');

    // enter: the node's metrics section above its engine log; esc: back to the list.
    await term.keys('Enter');
    screen = await term.waitFor(/llama_server: model loaded/, 30_000);
    expect(screen).toContain('svc fleet dashboard · ' + fleetPath + ' · gpu');
    expect(screen).toContain('esc back');
    expect(widest(screen)).toBeLessThanOrEqual(COLUMNS);
    await term.keys('Escape');
    await term.waitFor(/enter detail/);

    // ↓ moves the selection; x on the misconfigured node fails on its own line, nothing else.
    await term.keys('Down');
    await term.waitFor(/> locked/);
    await term.keys('x');
    await term.waitFor(/locked {2}failed: LOCKED_TOKEN_UNSET is not set/);

    // x stops the selected node.
    await term.keys('Up', 'x');
    await term.waitFor(/> gpu +stopped/, 30_000);
    expect((await gpu.call('GET', '/v1/status')).json).toMatchObject({ state: 'stopped' });

    await term.keys('q');
    screen = await term.waitFor(/svc exited \d+/);
    expect(screen).toContain('svc exited 0');
  });
});
