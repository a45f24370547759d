/**
 * The upstream driver (docs/design.md D30): its state from one bounded GET of `<url>/models` with
 * its key as a bearer token; never started or stopped; no text of it ever holds the key.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { upstreamNode } from '../../../../test/support/project-files/fleet-node.ts';
import { upstreamDriver } from './upstream-driver.ts';

const KEY = 'sk-never-shown-0123';
const servers: Server[] = [];

async function serve(answer: (request: IncomingMessage) => number | 'hang'): Promise<string> {
  const server = createServer((request, response) => {
    const status = answer(request);
    if (status !== 'hang') {
      response.writeHead(status, { 'content-type': 'application/json' }).end('{"data":[]}');
    }
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

describe('upstreamDriver', () => {
  it('is running while its /models answers, sent its key as a bearer token', async () => {
    const seen: { path?: string; authorization?: string }[] = [];
    const url = await serve((request) => {
      seen.push({ path: request.url ?? '', authorization: request.headers.authorization ?? '' });
      return 200;
    });
    const reply = await upstreamDriver().status(
      upstreamNode('hosted', { url, apiKey: KEY, slots: 4 }),
    );
    expect(reply).toEqual({ ok: true, value: { state: 'running', runner: 'upstream', slots: 4 } });
    expect(seen).toEqual([{ path: '/v1/models', authorization: `Bearer ${KEY}` }]);
  });

  it('sends no Authorization when it has no key', async () => {
    const seen: (string | undefined)[] = [];
    const url = await serve((request) => {
      seen.push(request.headers.authorization);
      return 200;
    });
    await upstreamDriver().status(upstreamNode('hosted', { url }));
    expect(seen).toEqual([undefined]);
  });

  it('is unauthorized on 401, naming the node and never the key', async () => {
    const url = await serve(() => 401);
    const reply = await upstreamDriver().status(upstreamNode('hosted', { url, apiKey: KEY }));
    expect(reply).toMatchObject({ ok: false, outcome: 'unauthorized', status: 401 });
    expect(!reply.ok && reply.detail).toContain('upstream node "hosted"');
    expect(JSON.stringify(reply)).not.toContain(KEY);
  });

  it('is unreachable when nothing listens, and when it does not answer within the bound', async () => {
    const driver = upstreamDriver();
    const refused = await driver.status(
      upstreamNode('gone', { url: 'http://127.0.0.1:9/v1', apiKey: KEY }),
    );
    expect(refused).toMatchObject({ ok: false, outcome: 'unreachable' });
    const url = await serve(() => 'hang');
    const silent = await driver.status(upstreamNode('slow', { url, apiKey: KEY }), 200);
    expect(silent).toMatchObject({ ok: false, outcome: 'unreachable' });
    expect(JSON.stringify([refused, silent])).not.toContain(KEY);
  });

  it('is never started or stopped, and has no wake', async () => {
    const driver = upstreamDriver();
    const node = upstreamNode('hosted');
    await expect(driver.wakeSource(node)).rejects.toThrow('upstream node');
    expect(await driver.stop(node)).toMatchObject({ ok: false, outcome: 'unsupported' });
  });

  it('reads as its check in stats, with the names it serves and never its key', async () => {
    const driver = upstreamDriver();
    const url = await serve(() => 200);
    const node = upstreamNode('hosted', {
      url,
      apiKey: KEY,
      models: { big: 'vendor/big', small: 'small' },
    });
    const reply = await driver.stats(node);
    expect(reply).toEqual({
      ok: true,
      value: { state: 'running', runner: 'upstream', servedName: 'big, small' },
    });
    const gone = await driver.stats(
      upstreamNode('gone', { url: 'http://127.0.0.1:9/v1', apiKey: KEY }),
    );
    expect(gone).toMatchObject({ ok: false, outcome: 'unreachable' });
    expect(JSON.stringify([reply, gone])).not.toContain(KEY);
  });
});
