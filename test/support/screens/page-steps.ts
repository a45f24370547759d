/**
 * Steps on the fleet page in headless Chromium (browser.ts) that several end-to-end tests take:
 * sign in with a token, wait for a node card's field, click a node's Start or Stop button, and read
 * the page's confirm step (a forced start or stop, docs/design.md D33).
 */
import type { Page } from 'puppeteer-core';

// The callbacks handed to page.waitForFunction run inside Chromium, not Node: the few browser
// globals they touch, typed here because the project compiles without the DOM lib.
interface BrowserNode {
  readonly textContent: string | null;
  readonly hidden?: boolean;
}
declare const document: { querySelector(selector: string): BrowserNode | null };

/** Opens the page at `url`, signs in with `token` and waits for `node`'s card. */
export async function signIn(page: Page, url: string, token: string, node: string): Promise<void> {
  await page.setViewport({ width: 1200, height: 900 });
  await page.goto(`${url}/`, { waitUntil: 'load' });
  await page.locator('#token').fill(token);
  await page.keyboard.press('Enter');
  await page.waitForSelector(`[data-node="${node}"] [data-field="state"]`, { timeout: 60_000 });
}

/** Waits until the node card's field reads `text` (the page refreshes every 2 s). */
export async function waitForField(
  page: Page,
  node: string,
  field: string,
  text: string,
): Promise<void> {
  await page.waitForFunction(
    (selector, wanted) => document.querySelector(selector)?.textContent === wanted,
    { timeout: 60_000 },
    `[data-node="${node}"] [data-field="${field}"]`,
    text,
  );
}

/** Clicks the node's Start or Stop button. */
export async function clickNode(page: Page, action: 'Start' | 'Stop', node: string): Promise<void> {
  await page.locator(`button[aria-label="${action} ${node}"]`).click();
}

/** Waits for the confirm step a refused start or stop offers; returns what it says. */
export async function confirmShown(page: Page): Promise<string> {
  await page.waitForFunction(() => document.querySelector('#confirm')?.hidden === false, {
    timeout: 60_000,
  });
  return page.evaluate(() => document.querySelector('#confirm-text')?.textContent ?? '');
}
