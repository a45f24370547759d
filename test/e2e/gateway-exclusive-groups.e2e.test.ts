/**
 * Exclusive and persistent groups end to end (docs/design.md D31): the built gateway runs the real
 * llama-server on the tiny model for three `kind: local` nodes, each in a group of its own: `big`
 * (exclusive), `chat` (a plain group) and `embed` (persistent). The process table is watched the
 * whole time: big's engine never runs beside chat's, whichever is asked for, and embed's engine,
 * started first, is the same process at the end.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import {
  enginesUnder,
  localNodesWithEngines,
  watchEngines,
} from '../support/processes/engine-watch.ts';
import { killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import { authorized, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { chat } from '../support/svc/scale-to-zero.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const ALIASES = { big: 'alpha', chat: 'beta', embed: 'gamma' };

describe('exclusive and persistent groups (docs/design.md D31)', () => {
  it("an exclusive member never runs beside a plain group's; the persistent one stays up", async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    for (const alias of Object.values(ALIASES)) {
      await writeFile(
        join(dir, `${alias}.svc`),
        `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nCONTEXT 256\n`,
      );
    }
    const fleet = [
      'groups:',
      '  big: {max: 1, minResidency: 0s, exclusive: true}',
      '  plain: {max: 1, minResidency: 0s}',
      '  keep: {max: 1, minResidency: 0s, persistent: true}',
      'nodes:',
      '  - {name: big, kind: local, file: alpha.svc, group: big}',
      '  - {name: chat, kind: local, file: beta.svc, group: plain}',
      '  - {name: embed, kind: local, file: gamma.svc, group: keep}',
      '',
    ];
    await writeFile(join(dir, 'fleet.yaml'), fleet.join('\n'));
    const { gateway, url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      args: ['--fleet', join(dir, 'fleet.yaml')],
      logLevel: 'info',
      env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
    });
    const engines = (): string[] => localNodesWithEngines(gateway.pid, ALIASES);
    const engineOf = (alias: string): number | undefined =>
      enginesUnder(gateway.pid).find((engine) => engine.alias === alias)?.pid;
    // Only big and chat may never be seen together; embed may run beside either.
    const watch = watchEngines(() => engines().filter((node) => node !== 'embed'));

    expect(await chat(url, 'gamma')).toBe('200 chat.completion');
    const embedPid = engineOf('gamma');
    expect(embedPid).toBeDefined();
    killSurvivorsAfterTest([embedPid ?? 0]);
    for (const alias of ['beta', 'alpha', 'beta', 'alpha', 'beta']) {
      expect(await chat(url, alias)).toBe('200 chat.completion');
      killSurvivorsAfterTest(enginesUnder(gateway.pid).map((engine) => engine.pid));
    }
    // The route names what an exclusive start would stop: chat, not embed. Waited for: the
    // caller has its reply a moment before the gateway has counted chat's request ended, and a
    // busy chat is waited out (`queue`), not stopped.
    const route = await eventually(
      async () =>
        (await (
          await fetch(`${url}/v1/fleet/route?model=alpha`, { headers: authorized() })
        ).json()) as { action?: string },
      (decision) => decision.action !== 'queue',
      'the route for alpha once chat is idle',
    );
    expect(route).toMatchObject({ action: 'swap', node: 'big', stops: ['chat'] });

    watch.stop();
    expect(watch.overlaps).toEqual([]);
    expect(watch.busySamples).toBeGreaterThan(0);
    expect(engineOf('gamma')).toBe(embedPid);
  });
});
