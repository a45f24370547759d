/**
 * The prompt cache kept across a swap (docs/design.md D32, D26), end to end: the built gateway
 * runs the real llama-server on the tiny model for two local nodes in a group of one. A
 * conversation on A; a request for B swaps A out (A saves its slots); the conversation's next turn
 * swaps A back in, and the engine reports (`timings.cache_n`) how much of the earlier prompt it
 * took from the restored cache. The same fleet without keepCache starts over. The process table
 * is watched throughout: the group never runs both engines at once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { localNodesWithEngines, watchEngines } from '../support/processes/engine-watch.ts';
import { startTestGateway } from '../support/svc/gateway-fleet.ts';
import { fleetStates, resumed, turn } from '../support/svc/kept-conversation.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

/** A gateway over A (`alpha`) and B (`beta`) in a group of one, each with `keep` (or not). */
async function swappingGateway(keep: boolean) {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  for (const alias of ['alpha', 'beta']) {
    await writeFile(
      join(dir, `${alias}.svc`),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\n`,
    );
  }
  const extra = keep ? ', keepCache: on' : '';
  const fleet = join(dir, 'fleet.yaml');
  await writeFile(
    fleet,
    [
      'groups: {gpu: {max: 1, minResidency: 1s}}',
      'nodes:',
      `  - {name: a, kind: local, file: alpha.svc, group: gpu${extra}}`,
      `  - {name: b, kind: local, file: beta.svc, group: gpu${extra}}`,
      '',
    ].join('\n'),
  );
  const started = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config'),
    args: ['--fleet', fleet],
    logLevel: 'info',
    env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
  });
  const aliases = { a: 'alpha', b: 'beta' };
  const watch = watchEngines(() => localNodesWithEngines(started.gateway.pid, aliases));
  /** A request for B swaps A out; it is answered once B runs, and A is then stopped. */
  const swapOut = async () => {
    await turn(started.url, 'beta', [{ role: 'user', content: 'hello' }]);
    expect(localNodesWithEngines(started.gateway.pid, aliases)).toEqual(['b']);
    await eventually(
      () => fleetStates(started.url),
      (now) => now['a'] === 'stopped' && now['b'] === 'running',
      'a swapped out for b',
    );
  };
  return { ...started, watch, swapOut, aliases };
}

describe('keepCache across a swap', () => {
  it('a node swapped out and back resumes the conversation from its kept cache', async () => {
    const { gateway, url, watch, swapOut, aliases } = await swappingGateway(true);
    const share = await resumed(url, 'alpha', swapOut);
    expect(share).toBeGreaterThanOrEqual(0.8);
    expect(localNodesWithEngines(gateway.pid, aliases)).toEqual(['a']);
    expect(gateway.stderr()).toMatch(/stopping node for a swap.*node=a/);
    expect(gateway.stderr()).toMatch(/node woke with its prompt cache.*node=a.*tokens=\d{3,}/);
    watch.stop();
    expect(watch.overlaps).toEqual([]);
    expect(watch.busySamples).toBeGreaterThan(0);
  });

  it('without keepCache the swapped-back node evaluates the whole prompt again', async () => {
    const { gateway, url, watch, swapOut } = await swappingGateway(false);
    expect(await resumed(url, 'alpha', swapOut)).toBeLessThan(0.2);
    expect(gateway.stderr()).not.toMatch(/node woke with its prompt cache/);
    watch.stop();
    expect(watch.overlaps).toEqual([]);
  });
});
