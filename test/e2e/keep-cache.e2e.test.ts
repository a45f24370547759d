/**
 * The prompt cache kept across idle stops (docs/design.md D32), end to end: the built gateway in
 * front of the real llama-server on the tiny model, a local node and a daemon node under
 * `idleStop`, each with `keepCache: on` beside one without. A conversation's first turn fills
 * the engine's slot; the node is stopped for idleness; the next turn wakes it, and the engine
 * itself reports (`timings.cache_n`) how much of the earlier prompt it did not evaluate again.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import {
  authorized,
  NODE_TOKEN,
  startGatewayFleet,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { fleetStates, resumed } from '../support/svc/kept-conversation.ts';
import { nodeState } from '../support/svc/scale-to-zero.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

describe('keepCache', () => {
  it('a woken local node resumes the conversation from its kept cache; one without starts over', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    for (const alias of ['kept', 'plain']) {
      await writeFile(
        join(dir, `${alias}.svc`),
        `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\n`,
      );
    }
    const fleet = join(dir, 'fleet.yaml');
    await writeFile(
      fleet,
      [
        'idleStop: 2s',
        'nodes:',
        '  - {name: kept, kind: local, file: kept.svc, keepCache: on}',
        '  - {name: plain, kind: local, file: plain.svc}',
        '',
      ].join('\n'),
    );
    const { gateway, url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      args: ['--fleet', fleet],
      logLevel: 'info',
      env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
    const stoppedFor = (node: string) => () =>
      eventually(
        () => fleetStates(url),
        (now) => now[node] === 'stopped',
        `${node} stopped for idleness`,
      );

    expect(await resumed(url, 'kept', stoppedFor('kept'))).toBeGreaterThanOrEqual(0.8);
    expect(gateway.stderr()).toMatch(/node woke with its prompt cache.*node=kept.*tokens=\d{3,}/);
    expect(await resumed(url, 'plain', stoppedFor('plain'))).toBeLessThan(0.2);
    expect(gateway.stderr()).not.toMatch(/node woke with its prompt cache.*node=plain/);
  });

  it('a woken daemon node does the same, counting its saves and restores', async () => {
    const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
    const svcfile = `PROVIDER llamacpp\nMODEL ${model}\nALIAS kept\nBASEURL 127.0.0.1:{port}\n`;
    const fleet = await startGatewayFleet([{ name: 'kept', svcfile, extra: ['keepCache: on'] }], {
      top: ['idleStop: 2s'],
    });
    const daemon = fleet.daemons['kept'];
    if (daemon === undefined) {
      throw new Error('no daemon');
    }
    const stopped = () =>
      eventually(
        () => nodeState(daemon.url),
        (state) => state === 'stopped',
        'daemon node stopped for idleness',
      );
    const share = await resumed(fleet.url, 'kept', stopped);
    expect(share).toBeGreaterThanOrEqual(0.8);
    const metrics = await (
      await fetch(`${daemon.url}/metrics`, { headers: authorized(NODE_TOKEN) })
    ).text();
    expect(metrics).toMatch(/svc_engine_slot_saves_total [1-9]/);
    expect(metrics).toMatch(/svc_engine_slot_restores_total [1-9]/);
  });
});
