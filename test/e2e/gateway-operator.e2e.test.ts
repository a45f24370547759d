/**
 * Operator rights at the gateway (docs/design.md D28), end to end: the built gateway in front of
 * real daemons, one running the real llama-server on the tiny model (`a`) and one the fake engine,
 * whose stream of 400 chunks 150 ms apart stays open on cue (`slow`). With an operator token set,
 * the gateway token gets 403 on start and stop and the fleet page shows it no buttons; the
 * operator token is accepted everywhere, starts and stops nodes, and sees the buttons; a stop in
 * the middle of a stream is refused with 409 `node_busy` naming it, and `?force=true` stops the
 * node anyway. With none set, the gateway token starts and stops as before. An operator variable
 * set nowhere, or holding the gateway token itself, stops the gateway at start-up.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import type { Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { endSharedByFile, sharedByFile } from '../support/processes/cleanup.ts';
import { openBrowser } from '../support/screens/browser.ts';
import {
  authorized,
  GATEWAY_TOKEN,
  type GatewayFleet,
  startGatewayFleet,
} from '../support/svc/gateway-fleet.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';

const OPERATOR_TOKEN = 'operator-token-1f2e';

// The callbacks handed to page.waitForFunction run inside Chromium, not Node: the few browser
// globals they touch, typed here because the project compiles without the DOM lib.
interface BrowserNode {
  readonly textContent: string | null;
}
declare const document: {
  querySelector(selector: string): BrowserNode | null;
  querySelectorAll(selector: string): { readonly length: number };
};

/** A POST to a node's start or stop route with `token` (the gateway's unless given). */
function control(
  fleet: GatewayFleet,
  node: string,
  action: string,
  token: string = GATEWAY_TOKEN,
): Promise<Response> {
  return fetch(`${fleet.url}/v1/fleet/nodes/${node}/${action}`, {
    method: 'POST',
    headers: authorized(token),
  });
}

async function rights(fleet: GatewayFleet, token: string): Promise<unknown> {
  const reply = await fetch(`${fleet.url}/v1/fleet/rights`, { headers: authorized(token) });
  expect(reply.status).toBe(200);
  return reply.json();
}

/** Reads a streamed reply until its text so far matches `pattern`; returns that text. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  pattern: RegExp,
): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  while (!pattern.test(text)) {
    const { done, value } = await reader.read();
    if (done) {
      throw new Error(`the stream ended before ${String(pattern)}: ${text}`);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text;
}

/** Reads what is left of a stream; a stream cut off by its engine ends with an error instead. */
async function readRest(reader: ReadableStreamDefaultReader<Uint8Array>): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        return text;
      }
      text += decoder.decode(value, { stream: true });
    }
  } catch {
    return text;
  }
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

/** Signs the page in with `token` and waits for both node cards. */
async function signIn(page: Page, token: string): Promise<void> {
  await page.locator('#token').fill(token);
  await page.keyboard.press('Enter');
  await page.waitForSelector('[data-node="a"] [data-field="state"]', { timeout: 60_000 });
  await page.waitForSelector('[data-node="slow"] [data-field="state"]', { timeout: 60_000 });
}

describe('with an operator token set', () => {
  let fleet: GatewayFleet;

  beforeAll(async () => {
    fleet = await sharedByFile(async () => {
      const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
      return startGatewayFleet(
        [
          {
            name: 'a',
            svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-a\nBASEURL 127.0.0.1:{port}\n`,
          },
          {
            name: 'slow',
            svcfile: 'PROVIDER llamacpp\nMODEL org/m\nALIAS m\nBASEURL 127.0.0.1:{port}\n',
            fake: 'chunks:400',
          },
        ],
        {
          top: ['gateway:', '  operatorTokenEnv: OPERATOR_TOKEN'],
          gatewayEnv: { OPERATOR_TOKEN },
        },
      );
    });
  });
  afterAll(endSharedByFile);

  it('refuses start and stop to the gateway token (403); the operator token does both, and all else', async () => {
    for (const action of ['start', 'stop']) {
      const refused = await control(fleet, 'a', action);
      expect(refused.status).toBe(403);
      expect(await refused.json()).toEqual({
        error: {
          message:
            "starting and stopping nodes needs the operator token (the fleet file's gateway.operatorTokenEnv); this token may use models and read the fleet",
          type: 'invalid_request_error',
          code: 'insufficient_permissions',
        },
      });
    }
    expect((await control(fleet, 'a', 'start', 'wrong-token')).status).toBe(401);
    expect(await rights(fleet, GATEWAY_TOKEN)).toEqual({ operator: false });
    expect(await rights(fleet, OPERATOR_TOKEN)).toEqual({ operator: true });
    expect((await fetch(`${fleet.url}/v1/fleet/rights`)).status).toBe(401);

    const started = await control(fleet, 'a', 'start', OPERATOR_TOKEN);
    expect(started.status, await started.clone().text()).toBe(200);
    expect(await started.json()).toMatchObject({ name: 'a', state: 'running' });

    // Accepted wherever the gateway token is: reads, metrics, and a model request.
    for (const path of ['/health', '/v1/models', '/v1/fleet', '/v1/fleet/stats', '/metrics']) {
      const reply = await fetch(`${fleet.url}${path}`, { headers: authorized(OPERATOR_TOKEN) });
      expect(reply.status, path).toBe(200);
    }
    const chat = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...authorized(OPERATOR_TOKEN), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'tiny-a',
        max_tokens: 4,
        messages: [{ role: 'user', content: 'hi' }],
      }),
    });
    expect(chat.status, await chat.clone().text()).toBe(200);
    expect(chat.headers.get('x-svc-node')).toBe('a');

    const stopped = await control(fleet, 'a', 'stop', OPERATOR_TOKEN);
    expect(stopped.status, await stopped.clone().text()).toBe(200);
    expect(await stopped.json()).toMatchObject({ name: 'a', state: 'stopped' });
  });

  it('shows the start and stop buttons only to the operator token, which starts and stops from the page', async () => {
    const browser = await openBrowser();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    page.on('console', (message) => {
      if (message.type() === 'error') {
        problems.push(message.text());
      }
    });
    await page.setViewport({ width: 1200, height: 900 });
    await page.goto(`${fleet.url}/`, { waitUntil: 'load' });

    // The gateway token: the nodes, their state and readings, no controls.
    await signIn(page, GATEWAY_TOKEN);
    expect(await page.$$eval('[data-node] button', (buttons) => buttons.length)).toBe(0);

    // The operator token, in the same tab after "Forget token": the same page, with controls.
    await page.locator('#forget').click();
    await signIn(page, OPERATOR_TOKEN);
    await page.locator('button[aria-label="Start a"]').click();
    await waitForField(page, 'a', 'state', 'running');
    await page.locator('button[aria-label="Stop a"]').click();
    await waitForField(page, 'a', 'state', 'stopped');
    expect(await page.$$eval('[data-node] button', (buttons) => buttons.length)).toBe(2);
    expect(problems).toEqual([]);
  });

  it('refuses to stop a node in the middle of a stream (409 node_busy) until forced', async () => {
    // A stream through the gateway wakes the node and stays open (400 chunks, 150 ms apart).
    const stream = await fetch(`${fleet.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...authorized(), 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'm',
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }),
    });
    expect(stream.status).toBe(200);
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, /data: \{/);

    const busy = await control(fleet, 'slow', 'stop', OPERATOR_TOKEN);
    expect(busy.status).toBe(409);
    const body = (await busy.json()) as { error: { message: string; type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', code: 'node_busy' });
    expect(body.error.message).toMatch(
      /^node "slow" has 1 request in flight through this gateway \(1 for m; the oldest has run \d+s\): .*\?force=true$/,
    );
    // The refusal left the stream alone: it goes on.
    await readUntil(reader, /"n":\d+[\s\S]*"n":\d+[\s\S]*"n":\d+/);

    const forced = await fetch(`${fleet.url}/v1/fleet/nodes/slow/stop?force=true`, {
      method: 'POST',
      headers: authorized(OPERATOR_TOKEN),
    });
    expect(forced.status, await forced.clone().text()).toBe(200);
    expect(await forced.json()).toMatchObject({ name: 'slow', state: 'stopped' });
    // The stream ends early, cut off with its engine.
    expect(await readRest(reader)).not.toContain('[DONE]');

    // Its count ended with it: started again and idle, the node stops without force.
    expect((await control(fleet, 'slow', 'start', OPERATOR_TOKEN)).status).toBe(200);
    const again = await control(fleet, 'slow', 'stop', OPERATOR_TOKEN);
    expect(again.status, await again.clone().text()).toBe(200);

    // Neither token appears in anything the gateway wrote (its log level is debug here).
    const output = fleet.gateway.output();
    expect(output).not.toContain(GATEWAY_TOKEN);
    expect(output).not.toContain(OPERATOR_TOKEN);
  });
});

describe('with no operator token set', () => {
  it('lets the gateway token start and stop nodes, and tells the page so', async () => {
    const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
    const fleet = await startGatewayFleet([
      {
        name: 'a',
        svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-a\nBASEURL 127.0.0.1:{port}\n`,
      },
    ]);
    expect(await rights(fleet, GATEWAY_TOKEN)).toEqual({ operator: true });
    const started = await control(fleet, 'a', 'start');
    expect(started.status, await started.clone().text()).toBe(200);
    expect(await started.json()).toMatchObject({ name: 'a', state: 'running' });
    const stopped = await control(fleet, 'a', 'stop');
    expect(stopped.status, await stopped.clone().text()).toBe(200);
    expect(await stopped.json()).toMatchObject({ name: 'a', state: 'stopped' });
  });
});

describe('gateway start-up with an operator token', () => {
  async function fleetFile(): Promise<string> {
    const dir = await tempDir();
    await writeFile(
      join(dir, 'fleet.yaml'),
      [
        'gateway:',
        '  operatorTokenEnv: OPS',
        'nodes:',
        '  - {name: a, host: 127.0.0.1, port: 1}',
        '',
      ].join('\n'),
    );
    return dir;
  }

  it('refuses a variable set nowhere, naming the key; svc fleet does not need it', async () => {
    const dir = await fleetFile();
    const gateway = await runSvc(['gateway', '--listen', '127.0.0.1:0'], {
      cwd: dir,
      env: { SVC_API_TOKEN: GATEWAY_TOKEN, SVC_CONFIG_DIR: dir, OPS: '' },
    });
    expect(gateway.status).toBe(2);
    expect(gateway.stderr).toContain('OPS is not set (gateway.operatorTokenEnv)');
    expect(gateway.stdout).not.toContain('listening');
    // docs/design.md D24: a command that does not run the gateway reads the file without it.
    const status = await runSvc(['fleet', 'status', '--json'], {
      cwd: dir,
      env: { SVC_CONFIG_DIR: dir, OPS: '' },
    });
    expect(status.status, status.stderr).toBe(0);
  });

  it('refuses an operator token that is the gateway token, echoing neither', async () => {
    const dir = await fleetFile();
    const gateway = await runSvc(['gateway', '--listen', '127.0.0.1:0'], {
      cwd: dir,
      env: { SVC_API_TOKEN: GATEWAY_TOKEN, SVC_CONFIG_DIR: dir, OPS: GATEWAY_TOKEN },
    });
    expect(gateway.status).toBe(2);
    expect(gateway.stderr).toContain(
      'OPS (gateway.operatorTokenEnv) holds the gateway token itself: give operators a token of their own',
    );
    expect(gateway.stderr + gateway.stdout).not.toContain(GATEWAY_TOKEN);
  });
});
