/**
 * Every start goes through the scheduler (docs/design.md D33), end to end: the built gateway runs
 * the real llama-server on the tiny model for three `kind: local` nodes in a group of one, and the
 * engines on the process table are watched the whole time. `svc fleet start`, `POST
 * /v1/fleet/nodes/{name}/start` and the fleet page's Start button (headless Chromium) each swap the
 * idle member out before the asked one starts. With a member inside its `minResidency`, each is
 * refused 409 `group_busy` naming it and why, and forced (`--force`, `?force=true`, the page's
 * confirm step) stops it first. Never two engines at once.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import {
  type EngineWatch,
  localNodesWithEngines,
  watchEngines,
} from '../support/processes/engine-watch.ts';
import { enginesUnder } from '../support/processes/engine-watch.ts';
import { killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import { openBrowser } from '../support/screens/browser.ts';
import { clickNode, confirmShown, signIn, waitForField } from '../support/screens/page-steps.ts';
import { authorized, GATEWAY_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { chat } from '../support/svc/scale-to-zero.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const ALIASES = { chat: 'alpha', coder: 'beta', gemma: 'gamma' };

let dir: string;

afterAll(endSharedByFile);

beforeAll(async () => {
  dir = await sharedByFile(() => tempDir());
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  for (const alias of Object.values(ALIASES)) {
    await writeFile(
      join(dir, `${alias}.svc`),
      `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nCONTEXT 256\n`,
    );
  }
});

interface GroupGateway {
  readonly url: string;
  readonly pid: number;
  readonly stderr: () => string;
  /** The engines under the gateway, by node, never more than one at a time (checked at the end). */
  readonly watch: EngineWatch;
  readonly engines: () => string[];
  /** `svc fleet …` against the gateway, through a fleet file whose gateway section names it. */
  readonly fleet: (...args: string[]) => ReturnType<typeof runSvc>;
}

/** The three nodes in `gpu: {max: 1, minResidency}` under a gateway of their own. */
async function groupGateway(name: string, minResidency: string): Promise<GroupGateway> {
  const nodes = [
    `groups: {gpu: {max: 1, minResidency: ${minResidency}}}`,
    'nodes:',
    ...Object.entries(ALIASES).map(
      ([node, alias]) => `  - {name: ${node}, kind: local, file: ${alias}.svc, group: gpu}`,
    ),
  ];
  await writeFile(join(dir, `${name}.yaml`), `${nodes.join('\n')}\n`);
  const { gateway, url } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, `config-${name}`),
    args: ['--fleet', join(dir, `${name}.yaml`)],
    logLevel: 'info',
    env: { PATH: testPath(), SVC_SAMPLE_INTERVAL_SECONDS: '0.3' },
  });
  // svc fleet reaches local nodes through the gateway its fleet file names (docs/design.md D27).
  const cliFleet = join(dir, `${name}-cli.yaml`);
  await writeFile(
    cliFleet,
    [`gateway: {url: ${url}, tokenEnv: GATEWAY_TOKEN}`, ...nodes, ''].join('\n'),
  );
  const engines = (): string[] => localNodesWithEngines(gateway.pid, ALIASES);
  const watch = watchEngines(engines);
  return {
    url,
    pid: gateway.pid,
    stderr: () => gateway.stderr(),
    watch,
    engines,
    fleet: (...args) =>
      runSvc(['fleet', ...args, '-f', cliFleet], {
        cwd: dir,
        env: { GATEWAY_TOKEN, SVC_CONFIG_DIR: join(dir, `config-${name}-cli`) },
      }),
  };
}

/** Each node's state and readiness as the gateway's /v1/fleet reports it. */
async function fleetStates(url: string): Promise<Record<string, string>> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  const body = (await reply.json()) as { nodes: { name: string; state: string; ready?: string }[] };
  return Object.fromEntries(
    body.nodes.map(({ name, state, ready }) => [
      name,
      ready === undefined ? state : `${state} ${ready}`,
    ]),
  );
}

/** Waits until `node` is the one running and its engine answers (a member still loading holds). */
async function onlyReady(group: GroupGateway, node: string): Promise<void> {
  await eventually(
    () => fleetStates(group.url),
    (now) => now[node] === 'running ready',
    `${node} running and ready`,
    { timeoutMs: 60_000 },
  );
  expect(group.engines()).toEqual([node]);
  killSurvivorsAfterTest(enginesUnder(group.pid).map((engine) => engine.pid));
}

function startRoute(group: GroupGateway, node: string, query = ''): Promise<Response> {
  return fetch(`${group.url}/v1/fleet/nodes/${node}/start${query}`, {
    method: 'POST',
    headers: authorized(),
  });
}

describe('manual starts in a group of one (docs/design.md D33)', () => {
  it('svc fleet start, the API and the page each swap the idle member out first', async () => {
    const group = await groupGateway('swap', '0s');
    expect(await chat(group.url, 'alpha')).toBe('200 chat.completion');
    await onlyReady(group, 'chat');

    const cli = await group.fleet('start', 'coder');
    expect(cli).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/coder +running/) as string,
    });
    expect(group.engines()).toEqual(['coder']);
    expect(group.stderr()).toMatch(/stopping node for a swap.*node=chat/);
    await onlyReady(group, 'coder');

    const api = await startRoute(group, 'gemma');
    expect(api.status, await api.clone().text()).toBe(200);
    expect(await api.json()).toMatchObject({ name: 'gemma', state: 'running' });
    expect(group.engines()).toEqual(['gemma']);
    await onlyReady(group, 'gemma');

    const browser = await openBrowser();
    const page = await browser.newPage();
    await signIn(page, group.url, GATEWAY_TOKEN, 'chat');
    await clickNode(page, 'Start', 'chat');
    await waitForField(page, 'chat', 'state', 'running');
    await waitForField(page, 'gemma', 'state', 'stopped');
    expect(group.engines()).toEqual(['chat']);

    group.watch.stop();
    expect(group.watch.overlaps).toEqual([]);
    expect(group.watch.busySamples).toBeGreaterThan(0);
  });

  it('refuses a start while the member has not run its residency (409 group_busy); forced, it swaps', async () => {
    const group = await groupGateway('held', '10m');
    expect(await chat(group.url, 'alpha')).toBe('200 chat.completion');
    await onlyReady(group, 'chat');
    // The node's status says ready a moment before the wake that started it has ended in the
    // scheduler (until then "chat" is still starting): wait for the gateway's own decision.
    await eventually(
      async () => {
        const reply = await fetch(`${group.url}/v1/fleet/route?model=coder`, {
          headers: authorized(),
        });
        return JSON.stringify(await reply.json());
      },
      (decision) => decision.includes('minimum residency'),
      'chat held for its residency',
    );

    const refused = await startRoute(group, 'coder');
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: Record<string, string> };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'group_busy' });
    expect(body.error['message']).toMatch(
      /^cannot start "coder": its group "gpu" runs at most 1 member and is held by "chat": it has not yet run its minimum residency \(.+ left\); .*\?force=true/,
    );
    const cli = await group.fleet('start', 'coder');
    expect(cli.status).toBe(1);
    expect(cli.stdout).toMatch(
      /coder +failed: .*held by "chat": it has not yet run its minimum residency/,
    );
    expect(group.engines()).toEqual(['chat']);

    const forced = await group.fleet('start', 'coder', '--force');
    expect(forced).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/coder +running/) as string,
    });
    expect(group.engines()).toEqual(['coder']);
    expect(group.stderr()).toMatch(/stopping node for a swap.*node=chat.*forced=true/);
    await onlyReady(group, 'coder');

    // The page: refused, it offers the forced start, done only once confirmed.
    const browser = await openBrowser();
    const page = await browser.newPage();
    await signIn(page, group.url, GATEWAY_TOKEN, 'gemma');
    await clickNode(page, 'Start', 'gemma');
    expect(await confirmShown(page)).toMatch(/held by "coder".*Start gemma anyway\?/);
    expect(group.engines()).toEqual(['coder']);
    await page.locator('#confirm-yes').click();
    await waitForField(page, 'gemma', 'state', 'running');
    await waitForField(page, 'coder', 'state', 'stopped');
    expect(group.engines()).toEqual(['gemma']);

    const api = await startRoute(group, 'chat', '?force=true');
    expect(api.status, await api.clone().text()).toBe(200);
    expect(group.engines()).toEqual(['chat']);

    group.watch.stop();
    expect(group.watch.overlaps).toEqual([]);
  });
});
