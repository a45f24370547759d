import { createServer, type Server } from 'node:http';

import { afterEach, describe, expect, it } from 'vitest';

import { SvcError } from '../errors.ts';
import { httpUrl, listen } from './listen.ts';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))),
  );
});

function server(): Server {
  const created = createServer((_request, reply) => reply.end('ok'));
  servers.push(created);
  return created;
}

describe('listen', () => {
  it('binds port 0 and reports the real port', async () => {
    const bound = await listen(server(), { host: '127.0.0.1', port: 0 });
    expect(bound.host).toBe('127.0.0.1');
    expect(bound.port).toBeGreaterThan(0);
    const reply = await fetch(`${httpUrl(bound)}/`);
    expect(await reply.text()).toBe('ok');
  });

  it('binds an IPv6 loopback address and brackets it in the URL', async () => {
    const bound = await listen(server(), { host: '::1', port: 0 });
    expect(bound.host).toBe('::1');
    expect(httpUrl(bound)).toBe(`http://[::1]:${bound.port}`);
  });

  it('fails with a system error naming the address when the port is taken', async () => {
    const first = await listen(server(), { host: '127.0.0.1', port: 0 });
    const error = await listen(server(), first).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('ERR_LISTEN_FAILED');
    expect((error as SvcError).kind).toBe('system');
    expect((error as SvcError).message).toBe(
      `cannot listen on 127.0.0.1:${first.port}: the address is already in use`,
    );
  });
});
