/**
 * A headless Chromium for end-to-end tests: Debian's `chromium` (the e2e global setup installs it
 * when missing) driven by puppeteer-core. The browser is closed, and killed by its PID, when the
 * test that opened it finishes, pass or fail.
 */
import { execFileSync } from 'node:child_process';

import puppeteer, { type Browser } from 'puppeteer-core';
import { onTestFinished } from 'vitest';

function chromiumPath(): string {
  return execFileSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' }).trim();
}

export async function openBrowser(): Promise<Browser> {
  const browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    // Tests run as root in CI, where Chromium's sandbox cannot start; the page is our own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run'],
  });
  const pid = browser.process()?.pid;
  onTestFinished(async () => {
    await browser.close().catch(() => undefined);
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return browser;
}
