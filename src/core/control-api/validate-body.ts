/**
 * Request bodies are checked against the contract schemas here rather than by Fastify's Ajv,
 * which coerces types ("12" → 12); docs/design.md D18 wants wrong types refused, never coerced. The
 * first problem is reported naming its field.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler, ValueErrorType } from '@sinclair/typebox/compiler';

import { HttpError } from '../http/http-error.ts';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function describe(schema: TSchema): string | undefined {
  const options = (schema['anyOf'] as TSchema[] | undefined)?.map(
    (member) => member['const'] as unknown,
  );
  return options?.every((value) => typeof value === 'string') === true
    ? `one of ${options.join(', ')}`
    : undefined;
}

/** "integer" → "an integer", "string" → "a string"; longer phrases stay as they are. */
function withArticle(kind: string): string {
  if (kind.includes(' ')) {
    return kind;
  }
  return /^[aeiou]/.test(kind) ? `an ${kind}` : `a ${kind}`;
}

export function validateBody<T extends TSchema>(schema: T, body: unknown): Static<T> {
  let check = compiled.get(schema);
  if (check === undefined) {
    check = TypeCompiler.Compile(schema);
    compiled.set(schema, check);
  }
  if (check.Check(body)) {
    return body;
  }
  const value: unknown = body;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new HttpError(400, 'the request body must be a JSON object');
  }
  const [first] = check.Errors(body);
  const field = first?.path.replace(/^\//, '').replaceAll('/', '.') || 'body';
  if (first === undefined) {
    throw new HttpError(400, 'invalid request body');
  }
  if (first.value === undefined) {
    throw new HttpError(400, `${field} is required`);
  }
  if (first.message.startsWith('Unexpected property')) {
    throw new HttpError(400, `${field} is not a field of this request`);
  }
  if (first.type === ValueErrorType.StringPattern) {
    // A pattern says little to a person: the schema's title says what the value must look like.
    // The value itself is not quoted: a refusal's reason is logged, and a body never is (spec §1.6).
    const shape = first.schema.title ?? `a string matching ${String(first.schema['pattern'])}`;
    throw new HttpError(400, `${field} must be ${shape}`);
  }
  const expected =
    describe(first.schema) ?? withArticle(first.message.replace(/^Expected /, '').toLowerCase());
  throw new HttpError(400, `${field} must be ${expected}`);
}
