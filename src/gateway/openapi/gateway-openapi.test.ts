/**
 * docs/gateway-openapi.json: every route the gateway's dispatch answers is described, with the
 * security its rights need, and the published file is what the generator writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { documentedRoutes, gatewayApiDocument, routeKey } from './gateway-openapi.ts';
import { GatewayErrorSchema } from './reply-schemas.ts';
import { ROUTE_DOCS } from './route-docs.ts';

const published = join(fileURLToPath(import.meta.url), '../../../../docs/gateway-openapi.json');

type Operation = {
  security: Record<string, unknown>[];
  responses: Record<string, { description: string }>;
};
const paths = gatewayApiDocument()['paths'] as Record<string, Record<string, Operation>>;
const operationOf = (method: string, pattern: string): Operation | undefined =>
  paths[pattern.replace(/<(\w+)>/g, '{$1}')]?.[method.toLowerCase()];

describe('docs/gateway-openapi.json (spec §4.2)', () => {
  it('equals what the code generates; run `npm run openapi` after changing a route or schema', () => {
    expect(JSON.parse(readFileSync(published, 'utf8'))).toEqual(gatewayApiDocument());
  });

  it('has an entry for every route of the table, and none for a route it lacks', () => {
    const routes = documentedRoutes().map(routeKey);
    expect(routes.filter((key) => ROUTE_DOCS[key] === undefined)).toEqual([]);
    expect(Object.keys(ROUTE_DOCS).filter((key) => !routes.includes(key))).toEqual([]);
    for (const route of documentedRoutes()) {
      expect(operationOf(route.method, route.pattern), routeKey(route)).toBeDefined();
    }
  });

  it('asks for the token each route needs: the operator for an operator route, none for the page', () => {
    for (const route of documentedRoutes()) {
      const wanted = route.rights === 'operate' ? 'operatorToken' : 'callerToken';
      expect(operationOf(route.method, route.pattern)?.security, routeKey(route)).toEqual([
        { [wanted]: [] },
      ]);
    }
    expect(operationOf('GET', '/v1/fleet/activity')?.security).toEqual([{ operatorToken: [] }]);
    expect(operationOf('GET', '/v1/fleet/usage')?.security).toEqual([{ callerToken: [] }]);
    expect(operationOf('GET', '/')?.security).toEqual([]);
  });

  it('names only refusal codes the gateway sends, with the statuses docs/gateway.md lists', () => {
    const codes = GatewayErrorSchema.properties.error.properties.code.anyOf.map(
      (member) => member.const as string,
    );
    for (const doc of Object.values(ROUTE_DOCS)) {
      for (const named of Object.values(doc.refusals)) {
        expect(codes).toEqual(expect.arrayContaining([...(named ?? [])]));
      }
    }
    const chat = operationOf('POST', '/v1/chat/completions')?.responses ?? {};
    expect(chat['403']?.description).toMatch(/`model_not_allowed`, `wake_not_allowed`/);
    expect(chat['429']?.description).toMatch(/`queue_full`/);
    expect(chat['503']?.description).toMatch(/`queue_timeout`/);
    const start = operationOf('POST', '/v1/fleet/nodes/{name}/start')?.responses ?? {};
    expect(start['409']?.description).toMatch(/`group_busy`/);
    const stop = operationOf('POST', '/v1/fleet/nodes/{name}/stop')?.responses ?? {};
    expect(stop['409']?.description).toMatch(/`node_busy`/);
  });

  it('describes a transcription as a multipart form naming its model', () => {
    const form = paths['/v1/audio/transcriptions']?.['post'] as unknown as {
      requestBody: { content: Record<string, { schema: { required: string[] } }> };
    };
    expect(form.requestBody.content['multipart/form-data']?.schema.required).toEqual(['model']);
  });
});
