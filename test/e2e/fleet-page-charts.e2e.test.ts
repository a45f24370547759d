/**
 * The fleet page's charts in headless Chromium, against the built gateway in front of two real
 * daemons running the real llama-server on the tiny model, both in one group of one. Each chart
 * must show the series the API (`GET /v1/fleet/history`) returns at the same moment, at 1280 px
 * and at a phone's 390 px, with nothing wider than the screen; the group panel names the member
 * holding the group and the swap that made room. SVC_UPDATE_SCREENSHOT=1 writes the screenshots
 * over docs/images/fleet-page-*.png (otherwise they go to a temporary folder).
 */
import { join } from 'node:path';

import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { REPO_ROOT } from '../support/prerequisites/engines.ts';
import { openBrowser } from '../support/screens/browser.ts';
import { signIn, waitForField } from '../support/screens/page-steps.ts';
import {
  authorized,
  GATEWAY_TOKEN,
  startGatewayFleet,
  tinyNodes,
} from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

// Run inside Chromium: the few browser globals touched, typed here (no DOM lib in the project).
interface BrowserNode {
  readonly textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelector(selector: string): BrowserNode | null;
  readonly documentElement: { readonly scrollWidth: number; readonly clientWidth: number };
};

type Point = readonly [number, number];

interface History {
  nodes: { name: string; samples: { t: number; inFlight: number; tokensPerSecond: number }[] }[];
  models: { model: string; samples: { t: number; queued: number; waitMs: number }[] }[];
  groups: {
    name: string;
    members: string[];
    holder: string | null;
    swaps: { stopped: string }[];
  }[];
}

async function historyOf(url: string): Promise<History> {
  const reply = await fetch(`${url}/v1/fleet/history`, { headers: authorized() });
  expect(reply.status).toBe(200);
  return (await reply.json()) as History;
}

/** Every chart the page draws, with the API series it must show. */
const CHARTS: readonly {
  readonly selector: string;
  readonly series: (history: History) => Point[] | undefined;
}[] = [
  {
    selector: '[data-node="a"] [data-chart="tokens"]',
    series: (h) =>
      h.nodes.find((n) => n.name === 'a')?.samples.map((s) => [s.t, s.tokensPerSecond]),
  },
  {
    selector: '[data-node="a"] [data-chart="in-flight"]',
    series: (h) => h.nodes.find((n) => n.name === 'a')?.samples.map((s) => [s.t, s.inFlight]),
  },
  {
    selector: '[data-node="b"] [data-chart="tokens"]',
    series: (h) =>
      h.nodes.find((n) => n.name === 'b')?.samples.map((s) => [s.t, s.tokensPerSecond]),
  },
  {
    selector: '[data-model="tiny-a"] [data-chart="queued"]',
    series: (h) => h.models.find((m) => m.model === 'tiny-a')?.samples.map((s) => [s.t, s.queued]),
  },
  {
    selector: '[data-model="tiny-a"] [data-chart="wait"]',
    series: (h) => h.models.find((m) => m.model === 'tiny-a')?.samples.map((s) => [s.t, s.waitMs]),
  },
];

/**
 * Reads the API and every chart's series in the page together until they agree (the page reads
 * the API every 2 s, the gateway samples every 5 s: most moments they hold the same samples).
 */
async function chartsMatchApi(page: Page, url: string): Promise<History> {
  const both = await eventually(
    async () => {
      const history = await historyOf(url);
      const shown = await page.evaluate(
        (selectors) =>
          selectors.map((selector) =>
            document.querySelector(selector)?.getAttribute('data-points'),
          ),
        CHARTS.map((chart) => chart.selector),
      );
      return { history, shown };
    },
    ({ history, shown }) =>
      CHARTS.every((chart, index) => {
        const expected = chart.series(history);
        return expected !== undefined && JSON.stringify(expected) === shown[index];
      }),
    'every chart showing the series GET /v1/fleet/history returns',
    { timeoutMs: 60_000, intervalMs: 200 },
  );
  return both.history;
}

async function overflow(page: Page): Promise<number> {
  return page.evaluate(
    () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
  );
}

describe('the fleet page draws the last 10 minutes', () => {
  it('shows per node, per model and per group what the API returns, wide and on a phone', async () => {
    const work = await tempDir();
    const model = await writeTinyModel(join(work, 'tiny.gguf'));
    const fleet = await startGatewayFleet(tinyNodes(model, ['a', 'b'], ['group: gpu']), {
      top: ['groups: {gpu: {max: 1, minResidency: 0s}}'],
    });
    // Replies with tokens, so node a's tokens/s rises above 0.
    for (let i = 0; i < 4; i += 1) {
      const reply = await chat(
        fleet.url,
        { model: 'tiny-a', max_tokens: 24 },
        { headers: authorized() },
      );
      expect(reply.status).toBe(200);
    }
    await eventually(
      () => historyOf(fleet.url),
      (h) => h.nodes.some((n) => n.name === 'a' && n.samples.some((s) => s.tokensPerSecond > 0)),
      "a sample with node a's tokens/s above 0",
      { timeoutMs: 30_000, intervalMs: 500 },
    );

    const browser = await openBrowser();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    await signIn(page, fleet.url, GATEWAY_TOKEN, 'a');
    await page.setViewport({ width: 1280, height: 900 });
    const shotDir =
      process.env['SVC_UPDATE_SCREENSHOT'] === '1' ? join(REPO_ROOT, 'docs', 'images') : work;

    const wide = await chartsMatchApi(page, fleet.url);
    const tokens = wide.nodes.find((n) => n.name === 'a')?.samples ?? [];
    expect(Math.max(...tokens.map((s) => s.tokensPerSecond))).toBeGreaterThan(0);
    expect(wide.groups).toEqual([{ name: 'gpu', members: ['a', 'b'], holder: 'a', swaps: [] }]);
    await page.waitForSelector('[data-group="gpu"] [data-member="a"].holder');
    expect(await overflow(page)).toBe(0);
    await page.screenshot({ path: join(shotDir, 'fleet-page-wide.png'), fullPage: true });

    // Starting b in the full group swaps a out: the panel names the new holder and the swap.
    const started = await fetch(`${fleet.url}/v1/fleet/nodes/b/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(started.status).toBe(200);
    await waitForField(page, 'b', 'state', 'running');
    const swapped = await eventually(
      () => historyOf(fleet.url),
      (h) => h.groups[0]?.holder === 'b',
      'group gpu held by b',
    );
    expect(swapped.groups[0]?.swaps.map((swap) => swap.stopped)).toEqual(['a']);
    await page.waitForSelector('[data-group="gpu"] [data-member="b"].holder');
    await page.waitForFunction(
      () => document.querySelector('[data-group="gpu"] .swaps')?.textContent?.includes('a stopped'),
      { timeout: 60_000 },
    );

    await page.setViewport({ width: 390, height: 844 });
    await chartsMatchApi(page, fleet.url);
    expect(await overflow(page)).toBe(0);
    await page.screenshot({ path: join(shotDir, 'fleet-page-phone.png'), fullPage: true });
    expect(problems).toEqual([]);
  }, 240_000);
});
