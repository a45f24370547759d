/**
 * An operator forces a stop from the CLI, the dashboard and the page (docs/design.md D28, D33), end
 * to end: the built gateway runs a `kind: local` node on the fake engine, whose stream of 400
 * chunks 150 ms apart keeps the node busy on cue. A plain stop of the busy node is refused (409
 * `node_busy`:
 * `svc fleet stop` exits 1 naming the request in flight, the dashboard's `x` says so, the page
 * offers the forced stop); `svc fleet stop --force`, the dashboard's `f` confirmed with `y` (and
 * not with `n`), and the page's confirm step each stop it, cutting the stream short.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { openBrowser } from '../support/screens/browser.ts';
import { clickNode, confirmShown, signIn, waitForField } from '../support/screens/page-steps.ts';
import { startTmux, svcInPane } from '../support/screens/tmux.ts';
import { FAKE_BIN_DIR } from '../support/svc/daemon.ts';
import { authorized, GATEWAY_TOKEN, startTestGateway } from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

/** A stream through the gateway, once its first chunk came; `rest` reads it to its end. */
async function busyStream(url: string): Promise<{ rest: () => Promise<string> }> {
  const reply = await chat(
    url,
    { model: 'm', stream: true, max_tokens: undefined },
    { headers: authorized() },
  );
  expect(reply.status).toBe(200);
  const reader = (reply.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!/data: \{/.test(text)) {
    const { done, value } = await reader.read();
    if (done) {
      throw new Error(`the stream ended before its first chunk: ${text}`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return {
    rest: async () => {
      try {
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          text += decoder.decode(next.value, { stream: true });
        }
      } catch {
        // cut off with its engine
      }
      return text;
    },
  };
}

async function nodeState(url: string): Promise<string | undefined> {
  const reply = await fetch(`${url}/v1/fleet`, { headers: authorized() });
  const body = (await reply.json()) as { nodes: { name: string; state: string }[] };
  return body.nodes.find((node) => node.name === 'slow')?.state;
}

async function start(url: string): Promise<void> {
  const reply = await fetch(`${url}/v1/fleet/nodes/slow/start`, {
    method: 'POST',
    headers: authorized(),
  });
  expect(reply.status, await reply.clone().text()).toBe(200);
}

describe('a forced stop of a busy local node', () => {
  it('svc fleet stop --force, the dashboard (f, then y) and the page (a confirm step)', async () => {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'slow.svc'),
      'PROVIDER llamacpp\nMODEL org/m\nALIAS m\nENV FAKE_ENGINE=chunks:400\n',
    );
    const nodes = ['nodes:', '  - {name: slow, kind: local, file: slow.svc}'];
    await writeFile(join(dir, 'gateway.yaml'), `${nodes.join('\n')}\n`);
    const { url } = await startTestGateway({
      cwd: dir,
      configDir: join(dir, 'config'),
      args: ['--fleet', join(dir, 'gateway.yaml')],
      logLevel: 'info',
      env: { PATH: testPath(FAKE_BIN_DIR) },
    });
    const fleetPath = join(dir, 'fleet.yaml');
    const section = `gateway: {url: ${url}, tokenEnv: GATEWAY_TOKEN}`;
    await writeFile(fleetPath, [section, ...nodes, ''].join('\n'));
    const env = { GATEWAY_TOKEN, SVC_CONFIG_DIR: join(dir, 'config-cli'), HOME: dir };

    // The CLI: refused while the stream runs, naming it; forced, it stops and the stream ends.
    await start(url);
    let stream = await busyStream(url);
    const refused = await runSvc(['fleet', 'stop', 'slow', '-f', fleetPath], { cwd: dir, env });
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(/slow +failed: .*409.*1 request in flight through this gateway/);
    expect(await nodeState(url)).toBe('running');
    const forced = await runSvc(['fleet', 'stop', 'slow', '--force', '-f', fleetPath], {
      cwd: dir,
      env,
    });
    expect(forced).toMatchObject({
      status: 0,
      stdout: expect.stringMatching(/slow +stopped/) as string,
    });
    expect(await stream.rest()).not.toContain('[DONE]');

    // The dashboard: x is refused; f asks first, n keeps it running, f then y stops it.
    await start(url);
    stream = await busyStream(url);
    const term = await startTmux(svcInPane(['fleet', 'dashboard', '-f', fleetPath], env), 120, 20);
    await term.waitFor(/> slow +running/, 30_000);
    await term.keys('x');
    await term.waitFor(/slow {2}failed: the gateway at/, 30_000);
    await term.keys('f');
    await term.waitFor(/force-stop slow\? Its requests in flight are cut\. +y yes +n no +q quit/);
    await term.keys('n');
    await term.waitFor(/s start +x stop +f force stop +q quit/);
    expect(await nodeState(url)).toBe('running');
    await term.keys('f');
    await term.waitFor(/force-stop slow\?/);
    await term.keys('y');
    await term.waitFor(/> slow +stopped/, 30_000);
    expect(await stream.rest()).not.toContain('[DONE]');
    await term.keys('q');
    expect(await term.waitFor(/svc exited \d+/)).toContain('svc exited 0');

    // The page: Stop is refused and offers the forced stop, done only once confirmed.
    await start(url);
    stream = await busyStream(url);
    const browser = await openBrowser();
    const page = await browser.newPage();
    await signIn(page, url, GATEWAY_TOKEN, 'slow');
    await waitForField(page, 'slow', 'state', 'running');
    await clickNode(page, 'Stop', 'slow');
    expect(await confirmShown(page)).toMatch(
      /node "slow" has 1 request in flight through this gateway.*Stop slow anyway\?/,
    );
    expect(await nodeState(url)).toBe('running');
    await page.locator('#confirm-yes').click();
    await waitForField(page, 'slow', 'state', 'stopped');
    expect(await stream.rest()).not.toContain('[DONE]');
  });
});
