/**
 * The lifecycle of a gateway's local engines (docs/design.md D27) against fake engines: the
 * gateway claims the fleet before it listens, holds every start from then until it has bound its
 * address and reaped what a dead gateway of the fleet left (so a reap never takes its own engine),
 * refuses the starts still held when it stops first, and stops every engine, then gives the fleet
 * up, on its way out. An engine that exits 0 on its own is said to have exited, not crashed (its
 * status is still `crashed`, docs/design.md D7). No process starts and no time is waited for.
 */
import { describe, expect, it } from 'vitest';

import { CONFIG, enginesHarness as harness } from '../../../../test/support/fakes/local-engines.ts';
import { localNode } from '../../../../test/support/project-files/fleet-node.ts';
import { specFromDeployConfig } from '../../engines/from-deploy-config.ts';
import type { LocalEngines } from './local-engines.ts';

/** A start of the node's engine as the local driver asks for it: in its turn. */
function start(engines: LocalEngines, name: string): Promise<void> {
  const engine = engines.engine(localNode(name));
  return engine.serialized(() => engine.start({ spec: specFromDeployConfig(CONFIG) }, undefined));
}

describe('local engines lifecycle', () => {
  it('reaps each node recorded engine at start-up, naming what it stopped', async () => {
    const h = harness(['b']);
    expect(await h.engines.reap([localNode('a'), localNode('b')])).toEqual([
      { node: 'b', pid: 4242 },
    ]);
    expect(h.reaped).toEqual(['/cfg/nodes/a/engine.pid', '/cfg/nodes/b/engine.pid']);
  });

  it('stops every running engine on the way out, and only then gives the fleet up', async () => {
    const h = harness();
    await h.engines.own([localNode('a'), localNode('b')]);
    await h.engines.takeOver([localNode('a'), localNode('b')], 'http://127.0.0.1:4000');
    await start(h.engines, 'a');
    await start(h.engines, 'b');
    h.engines.engine(localNode('c'));
    await h.engines.stopAll();
    expect(h.stopped.sort()).toEqual([1001, 1002]);
    expect(h.claims).toEqual([
      'claim /cfg /fleet/fleet.yaml a,b',
      'bound http://127.0.0.1:4000',
      'release',
    ]);
    expect(h.engines.engine(localNode('a')).record.snapshot().state).toBe('stopped');
  });

  it('holds every start from the claim until the reap is done, then runs it', async () => {
    const h = harness(['a']);
    await h.engines.own([localNode('a')]);
    // A keep-warm start, asked for before the gateway listens: it waits.
    const started = start(h.engines, 'a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(h.launched).toEqual([]);
    await h.engines.takeOver([localNode('a')], 'http://127.0.0.1:4000');
    expect(h.reaped).toEqual(['/cfg/nodes/a/engine.pid']);
    // Only now, so the reap can never find this start's own engine in the pid record.
    await started;
    expect(h.launched).toHaveLength(1);
    expect(h.claims).toEqual(['claim /cfg /fleet/fleet.yaml a', 'bound http://127.0.0.1:4000']);
  });

  it('refuses a held start when the gateway stops before it listens', async () => {
    const h = harness();
    await h.engines.own([localNode('a')]);
    const started = start(h.engines, 'a');
    await h.engines.stopAll();
    await expect(started).rejects.toThrow('node "a" is not started: its gateway is stopping');
    expect(h.launched).toEqual([]);
    expect(h.claims).toEqual(['claim /cfg /fleet/fleet.yaml a', 'release']);
  });

  it('says an engine that exits 0 on its own exited, not that it crashed', async () => {
    const h = harness();
    await start(h.engines, 'a');
    h.exit(0, { code: 0, signal: null });
    await h.keyRemoved;
    expect(h.engines.engine(localNode('a')).record.snapshot().state).toBe('crashed');
    const said = h.logged.join('');
    expect(said).toMatch(/ERROR engine exited unprompted, not stopped by svc exit="exit code 0"/);
    expect(said).not.toContain('engine crashed');
  });
});
