/**
 * spec §2.1 `ready`: every engine svc runs has a known health check, oMLX included, so a running
 * engine always reports `ready` or `not-ready` (docs/daemon.md, Readiness).
 */
import { describe, expect, it } from 'vitest';

import { serveLoopback } from '../../../test/support/http/http-server.ts';
import { ENGINES, RUNNERS } from '../engines/engine-table.ts';
import { checkReadiness } from './readiness.ts';

describe('checkReadiness', () => {
  it.each(RUNNERS)('%s has a health check', (runner) => {
    expect(ENGINES[runner].health).toBeDefined();
  });

  it.each([
    [200, 'ready'],
    [503, 'not-ready'],
  ] as const)('oMLX answering /health %i is %s', async (status, expected) => {
    const base = await serveLoopback((request, reply) => {
      reply.statusCode = request.url === '/health' ? status : 404;
      reply.end('{"status":"healthy"}');
    });
    expect(await checkReadiness(ENGINES.omlx.health, base, undefined)).toBe(expected);
  });
});
