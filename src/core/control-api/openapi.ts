/**
 * The published description of the control API (spec §9.3), generated from the same route
 * table and schemas the server registers, so it cannot drift from the implementation.
 * docs/openapi.json holds the generated document; a test keeps the two equal.
 */
import type { TSchema } from '@sinclair/typebox';

import { ErrorSchema } from '../contract/schemas.ts';
import { ROUTES } from './routes.ts';

/**
 * A TypeBox schema as plain JSON Schema (TypeBox's symbol keys and $id dropped); the gateway's
 * document (gateway/openapi/) uses it too.
 */
export function plain(schema: TSchema): Record<string, unknown> {
  const { $id: _id, ...rest } = JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  return rest;
}

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid request (the error names what is wrong)',
  401: 'Bearer token missing or wrong',
  409: 'An engine is already running; nothing was changed',
  500: 'The engine could not be stopped',
};

export function controlApiDocument(): Record<string, unknown> {
  const components: Record<string, unknown> = { Error: plain(ErrorSchema) };
  const ref = (schema: TSchema): Record<string, string> => {
    const name = String(schema.$id);
    components[name] ??= plain(schema);
    return { $ref: `#/components/schemas/${name}` };
  };
  const errorReply = (status: number): Record<string, unknown> => ({
    description: STATUS_TEXT[status] ?? 'Error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  });

  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const operation: Record<string, unknown> = {
      operationId: route.name,
      summary: route.summary,
      responses: {
        200: {
          description: 'OK',
          content:
            route.text === undefined
              ? { 'application/json': { schema: ref(route.reply) } }
              : {
                  'text/plain; version=0.0.4': { schema: { type: 'string' } },
                  'application/openmetrics-text; version=1.0.0': { schema: { type: 'string' } },
                },
        },
        ...Object.fromEntries([401, ...route.errors].map((status) => [status, errorReply(status)])),
      },
    };
    if (route.body !== undefined) {
      operation['requestBody'] = {
        required: route.body.required,
        content: { 'application/json': { schema: ref(route.body.schema) } },
      };
    }
    if (route.query !== undefined) {
      operation['parameters'] = route.query.map((parameter) => ({
        name: parameter.name,
        in: 'query',
        required: false,
        description: parameter.description,
        schema: { type: 'integer', format: 'int64', minimum: parameter.minimum },
      }));
    }
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation };
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'svc control API',
      version: '1',
      description:
        'Supervises one inference engine: start, stop, status, metrics, logs, deploy config.',
    },
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } },
      schemas: components,
    },
  };
}
