/**
 * keepCache when what was kept cannot be used (docs/design.md D32), end to end with the built
 * gateway and the real llama-server on the tiny model: a slot file corrupted while the node was
 * stopped is skipped with a warning and the node still serves; a node whose model file changed
 * (same path, a new mtime: the identity a slot file records) never restores the old cache, and
 * the log says why it skipped it.
 */
import { readdir, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { localNodeFile, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { fleetStates, resumed } from '../support/svc/kept-conversation.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

/** A gateway over one local node `kept` (keepCache on, idle stop 2 s) serving the tiny model. */
async function keptNode() {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  await writeFile(join(dir, 'kept.svc'), `PROVIDER llamacpp\nMODEL ${model}\nALIAS kept\n`);
  const fleet = join(dir, 'fleet.yaml');
  await writeFile(
    fleet,
    'idleStop: 2s\nnodes:\n  - {name: kept, kind: local, file: kept.svc, keepCache: on}\n',
  );
  const configDir = join(dir, 'config');
  const started = await startTestGateway({
    cwd: dir,
    configDir,
    args: ['--fleet', fleet],
    logLevel: 'info',
    env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
  });
  const stopped = () =>
    eventually(
      () => fleetStates(started.url),
      (now) => now['kept'] === 'stopped',
      'kept stopped for idleness',
    );
  const slots = localNodeFile(started.gateway, 'kept', 'slots');
  return { ...started, model, stopped, slots };
}

describe('keepCache faults', () => {
  it('a corrupted slot file is skipped with a warning and the node serves', async () => {
    const { gateway, url, stopped, slots } = await keptNode();
    const share = await resumed(url, 'kept', async () => {
      await stopped();
      const saved = (await readdir(slots)).filter((name) => name.endsWith('.bin'));
      expect(saved.length).toBeGreaterThan(0);
      for (const name of saved) {
        await writeFile(join(slots, name), 'not a slot file');
      }
    });
    expect(share).toBeLessThan(0.2);
    expect(gateway.stderr()).toMatch(/WARN.*could not restore an engine slot; it starts empty/u);
    expect(gateway.stderr()).not.toMatch(/node woke with its prompt cache/);
  });

  it('a model file changed under its Svcfile never restores the old cache, and says why', async () => {
    const { gateway, url, model, stopped } = await keptNode();
    const share = await resumed(url, 'kept', async () => {
      await stopped();
      // The Svcfile's model rewritten in place: same path, another mtime (a new download).
      const later = new Date(Date.now() + 60_000);
      await utimes(model, later, later);
    });
    expect(share, gateway.stderr()).toBeLessThan(0.2);
    expect(gateway.stderr()).toMatch(
      /skipped an engine slot file saved by another model or build.*slot=0.*differs=modelMtimeMs/u,
    );
    expect(gateway.stderr()).not.toMatch(/node woke with its prompt cache/);
  });
});
