/**
 * The fleet page in a real browser: headless Chromium (test/support/screens/browser.ts) against the built
 * gateway in front of two real daemons, one running the real llama-server on the tiny model and
 * one stopped. The page's files load without the token and under a strict CSP; the token is asked
 * once and kept for the tab; the nodes show; a chat reply streams in; a node is stopped and the
 * other started from the page. A screenshot is taken each run; SVC_UPDATE_SCREENSHOT=1 writes it
 * over docs/fleet-page.png (otherwise it goes to a temporary folder, so a test run leaves the
 * working tree as it was).
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { startProcess } from '../support/processes/processes.ts';
import { openBrowser } from '../support/screens/browser.ts';
import { authorized, GATEWAY_TOKEN, startGatewayFleet } from '../support/svc/gateway-fleet.ts';
import { SVC, tempDir } from '../support/svc/svc.ts';

// The callbacks handed to page.evaluate/waitForFunction run inside Chromium, not Node: these are
// the few browser globals they touch, typed here because the project compiles without the DOM lib.
interface BrowserNode {
  readonly textContent: string | null;
  readonly hidden?: boolean;
}
declare const document: {
  querySelector(selector: string): BrowserNode | null;
  querySelectorAll(selector: string): Iterable<BrowserNode>;
  readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
};
declare const sessionStorage: { getItem(key: string): string | null };
declare const localStorage: { readonly length: number };
declare const window: { replyChanges?: { changes: number } };
declare class MutationObserver {
  constructor(callback: (records: readonly unknown[]) => void);
  observe(target: BrowserNode, options: Record<string, boolean>): void;
}

/** Waits until the node card's field reads `text` (the page refreshes every 2 s). */
async function waitForField(page: Page, node: string, field: string, text: string): Promise<void> {
  await page.waitForFunction(
    (selector, wanted) => document.querySelector(selector)?.textContent === wanted,
    { timeout: 60_000 },
    `[data-node="${node}"] [data-field="${field}"]`,
    text,
  );
}

describe('the fleet page in headless Chromium', () => {
  it('asks for the token, shows the nodes, streams a chat reply, stops and starts nodes', async () => {
    const work = await tempDir();
    const model = await writeTinyModel(join(work, 'tiny.gguf'));
    const fleet = await startGatewayFleet([
      {
        name: 'a',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-a\nBASEURL 127.0.0.1:{port}\n`,
      },
      {
        name: 'b',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-b\nBASEURL 127.0.0.1:{port}\n`,
      },
    ]);
    // Node a runs before the page opens, through the page's own start route; b stays stopped.
    const started = await fetch(`${fleet.url}/v1/fleet/nodes/a/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(started.status).toBe(200);
    expect(await started.json()).toMatchObject({ name: 'a', state: 'running' });

    // The files need no token and carry the CSP; every data route needs the token.
    const html = await fetch(`${fleet.url}/`);
    expect(html.status).toBe(200);
    expect(html.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(html.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect((await fetch(`${fleet.url}/page/app.js`)).headers.get('content-type')).toBe(
      'text/javascript; charset=utf-8',
    );
    expect((await fetch(`${fleet.url}/v1/fleet/stats`)).status).toBe(401);
    expect((await fetch(`${fleet.url}/v1/fleet/nodes/b/start`, { method: 'POST' })).status).toBe(
      401,
    );
    const unknown = await fetch(`${fleet.url}/v1/fleet/nodes/bb/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('did you mean \\"b\\"');

    const browser = await openBrowser();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('401')) {
        problems.push(message.text());
      }
    });
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${fleet.url}/`, { waitUntil: 'load' });

    // A wrong token is refused and asked for again; the right one, typed and sent by keyboard, holds.
    await page.type('#token', 'not-the-token');
    await page.keyboard.press('Enter');
    await page.waitForFunction(
      () => document.querySelector('#login-error')?.textContent?.includes('refused') === true,
    );
    await page.type('#token', GATEWAY_TOKEN);
    await page.keyboard.press('Enter');
    await waitForField(page, 'a', 'state', 'running');
    await waitForField(page, 'a', 'ready', 'ready');
    await waitForField(page, 'a', 'model', 'tiny-a');
    await waitForField(page, 'b', 'state', 'idle');
    await waitForField(page, 'b', 'model', 'tiny-b');
    const kept = await page.evaluate(() => [
      sessionStorage.getItem('svc-gateway-token'),
      localStorage.length,
    ]);
    expect(kept).toEqual([GATEWAY_TOKEN, 0]);
    // Readings with their history (CPU at least; this machine may have no GPU).
    await page.waitForSelector('[data-node="a"] .meter polyline');

    // The chat reply streams: the reply box changes several times before it is done.
    await page.waitForFunction(() =>
      Array.from(document.querySelectorAll('#model option')).some(
        (o) => o.textContent === 'tiny-a',
      ),
    );
    await page.select('#model', 'tiny-a');
    await page.type('#prompt', 'Say hello');
    await page.evaluate(() => {
      const reply = document.querySelector('#reply');
      const counts = { changes: 0 };
      window.replyChanges = counts;
      if (reply !== null) {
        // Count records, not callbacks: deltas read from one network chunk are applied in one task
        // and reach the observer as one callback with a record each.
        new MutationObserver((records) => {
          counts.changes += records.length;
        }).observe(reply, { childList: true, characterData: true, subtree: true });
      }
    });
    await page.click('#send');
    await page.waitForSelector('#reply[data-done="true"]', { timeout: 60_000 });
    const reply = await page.evaluate(() => ({
      text: document.querySelector('#reply')?.textContent ?? '',
      changes: window.replyChanges?.changes ?? 0,
      error: document.querySelector('#chat-error')?.textContent ?? '',
    }));
    expect(reply.error).toBe('');
    expect(reply.text.length).toBeGreaterThan(0);
    expect(reply.changes).toBeGreaterThan(1);
    const shotDir = process.env['SVC_UPDATE_SCREENSHOT'] === '1' ? join(REPO_ROOT, 'docs') : work;
    await page.screenshot({ path: join(shotDir, 'fleet-page.png') });

    // Stop a and start b from the page, by keyboard-reachable buttons named for their node.
    await page.locator('button[aria-label="Stop a"]').click();
    await waitForField(page, 'a', 'state', 'stopped');
    await page.locator('button[aria-label="Start b"]').click();
    await waitForField(page, 'b', 'state', 'running');
    expect(fleet.daemons['b']?.process.stderr()).toMatch(/starting engine/);

    // Readable on a phone: nothing wider than the screen.
    await page.setViewport({ width: 390, height: 844 });
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    expect(overflow).toBe(0);
    expect(problems).toEqual([]);
  });

  it('asks for no token when the gateway wants none', async () => {
    const work = await tempDir();
    const model = await writeTinyModel(join(work, 'tiny.gguf'));
    await writeFile(join(work, 'a.svc'), `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-a\n`);
    await writeFile(
      join(work, 'fleet.yaml'),
      `nodes:\n  - {name: a, kind: local, file: ${join(work, 'a.svc')}}\n`,
    );
    // On loopback without a token, as svc up runs a one-box fleet.
    const gateway = startProcess(SVC, ['gateway', '--listen', '127.0.0.1:0'], {
      cwd: work,
      env: {
        ...process.env,
        PATH: testPath(),
        SVC_API_TOKEN: '',
        SVC_CONFIG_DIR: join(work, 'config'),
        SVC_LOG_LEVEL: 'warn',
      },
    });
    const [, url = ''] = await gateway.waitFor(/listening on (http:\/\/127\.0\.0\.1:\d+)/);

    const browser = await openBrowser();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.goto(`${url}/`, { waitUntil: 'load' });
    await waitForField(page, 'a', 'state', 'idle');
    const shown = await page.evaluate(() => ({
      login: document.querySelector('#login')?.hidden,
      forget: document.querySelector('#forget')?.hidden,
      status: document.querySelector('#status')?.textContent,
      kept: sessionStorage.getItem('svc-gateway-token'),
    }));
    expect(shown).toEqual({ login: true, forget: true, status: 'Connected: 1 nodes', kept: null });
    expect(problems).toEqual([]);
  });
});
