/**
 * The fleet page signed in as a caller (docs/design.md D29), in headless Chromium against the
 * built gateway with `callers:` in its fleet file and a real daemon running the real llama-server:
 * a caller's page lists only its models and its own usage and hides the activity behind a plain
 * word; the operator's page shows every caller's usage and an activity table that takes in the
 * requests just made while it is open. No token ever reaches the page's DOM or its URL.
 */
import { join } from 'node:path';

import type { Page } from 'puppeteer-core';
import { describe, expect, it } from 'vitest';

import { chat } from '../support/http/chat.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { openBrowser } from '../support/screens/browser.ts';
import { signIn } from '../support/screens/page-steps.ts';
import {
  authorized,
  GATEWAY_TOKEN,
  startGatewayFleet,
  tinyNodes,
} from '../support/svc/gateway-fleet.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

const ALICE_TOKEN = 'alice-token-3f9c1d';
const BOB_TOKEN = 'bob-token-8e2a7b';

// Run inside Chromium: the few browser globals touched, typed here (no DOM lib in the project).
interface BrowserNode {
  readonly textContent: string | null;
  readonly hidden: boolean;
  readonly outerHTML: string;
  getAttribute(name: string): string | null;
}
declare const document: {
  querySelector(selector: string): BrowserNode | null;
  querySelectorAll(selector: string): Iterable<BrowserNode>;
  readonly documentElement: BrowserNode;
};
declare const location: { readonly href: string };

interface Shown {
  usage: (string | null)[][];
  activity: (string | null)[][];
  activityHidden: boolean | undefined;
  noteHidden: boolean | undefined;
  models: (string | null)[];
  html: string;
  href: string;
}

/** What the page shows now: usage rows, activity rows, the models offered, its HTML and URL. */
function shown(page: Page): Promise<Shown> {
  return page.evaluate(() => ({
    usage: Array.from(document.querySelectorAll('#usage-rows tr[data-caller]'), (row) => [
      row.getAttribute('data-caller'),
      row.getAttribute('data-model'),
    ]),
    activity: Array.from(document.querySelectorAll('#activity-rows tr'), (row) => [
      row.getAttribute('data-at'),
      row.getAttribute('data-caller'),
    ]),
    activityHidden: document.querySelector('#activity-wrap')?.hidden,
    noteHidden: document.querySelector('#activity-note')?.hidden,
    models: Array.from(document.querySelectorAll('#model option'), (o) => o.textContent),
    html: document.documentElement.outerHTML,
    href: location.href,
  }));
}

async function api<T>(url: string, path: string, token: string): Promise<T> {
  const reply = await fetch(`${url}${path}`, { headers: authorized(token) });
  expect(reply.status).toBe(200);
  return (await reply.json()) as T;
}

interface Usage {
  callers: { name: string; models: { model: string }[] }[];
}
interface Activity {
  requests: { at: string; caller: string }[];
}

const usagePairs = (usage: Usage): string[][] =>
  usage.callers.flatMap((caller) => caller.models.map((model) => [caller.name, model.model]));

describe('the fleet page as a caller', () => {
  it('shows a caller its own usage only and the operator the activity, live, never a token', async () => {
    const work = await tempDir();
    const model = await writeTinyModel(join(work, 'tiny.gguf'));
    const fleet = await startGatewayFleet(tinyNodes(model, ['a', 'b']), {
      top: [
        'callers:',
        '  - {name: alice, tokenEnv: ALICE_TOKEN, models: ["tiny-a"]}',
        '  - {name: bob, tokenEnv: BOB_TOKEN}',
      ],
      gatewayEnv: { ALICE_TOKEN, BOB_TOKEN },
    });
    const started = await fetch(`${fleet.url}/v1/fleet/nodes/a/start`, {
      method: 'POST',
      headers: authorized(),
    });
    expect(started.status).toBe(200);
    for (const token of [ALICE_TOKEN, BOB_TOKEN]) {
      const reply = await chat(fleet.url, { model: 'tiny-a' }, { headers: authorized(token) });
      expect(reply.status).toBe(200);
    }

    const browser = await openBrowser();
    const problems: string[] = [];
    const alicePage = await browser.newPage();
    alicePage.on('pageerror', (error) => problems.push(String(error)));
    await signIn(alicePage, fleet.url, ALICE_TOKEN, 'a');
    const aliceUsage = usagePairs(await api<Usage>(fleet.url, '/v1/fleet/usage', ALICE_TOKEN));
    expect(aliceUsage).toEqual([['alice', 'tiny-a']]);
    const alice = await eventually(
      () => shown(alicePage),
      (page) => page.usage.length > 0 && page.models.length > 0,
      "alice's usage and models on her page",
    );
    expect(alice.usage).toEqual(aliceUsage);
    expect(alice.models).toEqual(['tiny-a']);
    expect([alice.activityHidden, alice.noteHidden]).toEqual([true, false]);
    expect(alice.activity).toEqual([]);
    for (const token of [ALICE_TOKEN, BOB_TOKEN, GATEWAY_TOKEN]) {
      expect(alice.html).not.toContain(token);
      expect(alice.href).not.toContain(token);
    }

    const operatorPage = await browser.newPage();
    operatorPage.on('pageerror', (error) => problems.push(String(error)));
    await signIn(operatorPage, fleet.url, GATEWAY_TOKEN, 'a');
    const rowsOf = (activity: Activity): string[][] =>
      activity.requests.slice(0, 20).map((request) => [request.at, request.caller]);
    const matches = async (): Promise<{ api: string[][]; page: Shown }> => ({
      api: rowsOf(await api<Activity>(fleet.url, '/v1/fleet/activity?limit=20', GATEWAY_TOKEN)),
      page: await shown(operatorPage),
    });
    const before = await eventually(
      matches,
      ({ api: rows, page }) =>
        rows.length === 2 && JSON.stringify(page.activity) === JSON.stringify(rows),
      'the two requests in the activity table, as the API lists them',
    );
    expect(before.api.map((row) => row[1]).sort()).toEqual(['alice', 'bob']);
    expect(before.page.activityHidden).toBe(false);
    expect(before.page.usage).toEqual(
      usagePairs(await api<Usage>(fleet.url, '/v1/fleet/usage', GATEWAY_TOKEN)),
    );
    expect(before.page.usage.map((row) => row[0]).sort()).toEqual(['alice', 'bob']);

    // A request made while the page is open appears in it without a reload, newest first.
    const reply = await chat(fleet.url, { model: 'tiny-a' }, { headers: authorized(BOB_TOKEN) });
    expect(reply.status).toBe(200);
    const after = await eventually(
      matches,
      ({ api: rows, page }) =>
        rows.length === 3 && JSON.stringify(page.activity) === JSON.stringify(rows),
      'the new request in the activity table',
    );
    expect(after.page.activity[0]?.[1]).toBe('bob');
    for (const token of [ALICE_TOKEN, BOB_TOKEN, GATEWAY_TOKEN]) {
      expect(after.page.html).not.toContain(token);
      expect(after.page.href).not.toContain(token);
    }
    expect(problems).toEqual([]);
  }, 240_000);
});
