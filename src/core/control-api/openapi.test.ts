import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { controlApiDocument } from './openapi.ts';
import { ROUTES } from './routes.ts';

const published = join(fileURLToPath(import.meta.url), '../../../../docs/openapi.json');

describe('docs/openapi.json (spec §9.3)', () => {
  it('equals what the code generates; run `npm run openapi` after changing a route or schema', () => {
    expect(JSON.parse(readFileSync(published, 'utf8'))).toEqual(controlApiDocument());
  });

  it('describes every registered route with its method', () => {
    const paths = controlApiDocument()['paths'] as Record<string, Record<string, unknown>>;
    for (const route of ROUTES) {
      expect(paths[route.path]?.[route.method.toLowerCase()]).toBeDefined();
    }
  });

  it('carries the exact field names of the reply records', () => {
    const schemas = (
      controlApiDocument()['components'] as { schemas: Record<string, { properties?: object }> }
    ).schemas;
    expect(Object.keys(schemas['StatusResponse']?.properties ?? {})).toEqual(
      expect.arrayContaining([
        'state',
        'runner',
        'model',
        'servedName',
        'uptimeSeconds',
        'logPath',
        'lastActiveAt',
        'idleSeconds',
        'engine',
        'ready',
        'version',
      ]),
    );
    expect(Object.keys(schemas['LogsResponse']?.properties ?? {})).toEqual([
      'content',
      'nextOffset',
      'size',
      'path',
      'missing',
      'staleOffset',
    ]);
  });
});
