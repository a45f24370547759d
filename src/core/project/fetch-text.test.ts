import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { describe, expect, it } from 'vitest';

import { serveLoopback } from '../../../test/support/http/http-server.ts';
import { rejectionOf } from '../../../test/support/results/errors.ts';
import { DEFAULT_FETCH_LIMITS, fetchText } from './fetch-text.ts';

const LIMITS = { maxBytes: 1000, timeoutMs: 2000 };

describe('fetchText', () => {
  it('has 1 MiB and 15 s default limits', () => {
    expect(DEFAULT_FETCH_LIMITS).toEqual({ maxBytes: 1024 * 1024, timeoutMs: 15_000 });
  });

  it('returns the body of a 200 reply', async () => {
    const seen: string[] = [];
    const base = await serveLoopback((request, reply) => {
      seen.push(`${request.method ?? ''} ${request.url ?? ''}`);
      reply.end('PROVIDER llamacpp\nMODEL ünïcode\n');
    });
    expect(await fetchText(`${base}/team/Svcfile`, LIMITS)).toBe(
      'PROVIDER llamacpp\nMODEL ünïcode\n',
    );
    expect(seen).toEqual(['GET /team/Svcfile']);
  });

  it('uses the default limits when none are given', async () => {
    const base = await serveLoopback((_request, reply) => reply.end('ok'));
    expect(await fetchText(`${base}/Svcfile`)).toBe('ok');
  });

  it('accepts a body of exactly maxBytes', async () => {
    const base = await serveLoopback((_request, reply) => reply.end('x'.repeat(1000)));
    expect(await fetchText(`${base}/Svcfile`, LIMITS)).toBe('x'.repeat(1000));
  });

  it('turns a 404 into ERR_FETCH "HTTP 404: not found", naming the URL', async () => {
    const base = await serveLoopback((_request, reply) => {
      reply.statusCode = 404;
      reply.end('no such file');
    });
    const url = `${base}/missing/Svcfile`;
    const error = await rejectionOf(fetchText(url, LIMITS));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.kind).toBe('user');
    expect(error.message).toBe(`fetching ${url}: HTTP 404: not found`);
  });

  it.each([500, 403, 301])('turns a %i reply into ERR_FETCH "HTTP <status>"', async (status) => {
    const base = await serveLoopback((_request, reply) => {
      reply.statusCode = status;
      reply.end('nope');
    });
    const url = `${base}/Svcfile`;
    const error = await rejectionOf(fetchText(url, LIMITS));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toBe(`fetching ${url}: HTTP ${status}`);
  });

  it('returns an empty body for a 204', async () => {
    const base = await serveLoopback((_request, reply) => {
      reply.statusCode = 204;
      reply.end();
    });
    expect(await fetchText(`${base}/Svcfile`, LIMITS)).toBe('');
  });

  it('refuses a body larger than maxBytes', async () => {
    const base = await serveLoopback((_request, reply) => reply.end('x'.repeat(5000)));
    const url = `${base}/big`;
    const error = await rejectionOf(fetchText(url, LIMITS));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toBe(`fetching ${url}: the reply is larger than 1000 bytes`);
  });

  it('refuses a streamed body that grows past maxBytes', async () => {
    const base = await serveLoopback((_request, reply) => {
      reply.write('x'.repeat(600));
      setTimeout(() => reply.end('y'.repeat(600)), 20);
    });
    const error = await rejectionOf(fetchText(`${base}/big`, LIMITS));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toContain('larger than 1000 bytes');
  });

  it('gives up on a server that never answers, naming the URL and the time', async () => {
    const base = await serveLoopback(() => {
      // never answer
    });
    const url = `${base}/slow/Svcfile`;
    // No clock read here: without the limit this never settles, and the test's own timeout fails it.
    const error = await rejectionOf(fetchText(url, { maxBytes: 1000, timeoutMs: 300 }));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toBe(`fetching ${url}: no complete reply within 0.3 s`);
  });

  it('gives up on a body that stalls midway', async () => {
    const base = await serveLoopback((_request, reply) => {
      reply.writeHead(200, { 'content-length': '100' });
      reply.write('partial');
    });
    const url = `${base}/stall`;
    const error = await rejectionOf(fetchText(url, { maxBytes: 1000, timeoutMs: 300 }));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toContain(url);
    expect(error.message).toContain('no complete reply within 0.3 s');
  });

  it('follows a 302 redirect to another path on the same server', async () => {
    const seen: string[] = [];
    const base = await serveLoopback((request, reply) => {
      seen.push(request.url ?? '');
      if (request.url === '/old/Svcfile') {
        reply.writeHead(302, { location: '/new/Svcfile' });
        reply.end();
        return;
      }
      reply.end('PROVIDER vllm\n');
    });
    expect(await fetchText(`${base}/old/Svcfile`, LIMITS)).toBe('PROVIDER vllm\n');
    expect(seen).toEqual(['/old/Svcfile', '/new/Svcfile']);
  });

  it('ends a redirect loop in ERR_FETCH rather than looping forever', async () => {
    let hits = 0;
    const base = await serveLoopback((_request, reply) => {
      hits += 1;
      reply.writeHead(302, { location: '/loop' });
      reply.end();
    });
    const url = `${base}/loop`;
    const error = await rejectionOf(fetchText(url, LIMITS));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message).toContain(url);
    expect(hits).toBeLessThanOrEqual(10);
  });

  it('reports a refused connection as ERR_FETCH naming the URL', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const url = `http://127.0.0.1:${port}/Svcfile`;
    const error = await rejectionOf(fetchText(url, LIMITS));
    expect(error.code).toBe('ERR_FETCH');
    expect(error.message.startsWith(`fetching ${url}: `)).toBe(true);
    expect(error.cause).toBeDefined();
  });
});
