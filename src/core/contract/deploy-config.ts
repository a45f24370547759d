/**
 * DeployConfig and StartRequest (spec §2.3, §2.7): what a client asks a daemon to serve. The
 * schema is the one source of the field names; the TypeScript types are derived from it.
 */
import { type Static, Type } from '@sinclair/typebox';

import { SIZE_PATTERN } from '../engines/keep-cache.ts';

/** spec §2.7: omlx is not a deployable runner. */
export const DEPLOY_RUNNERS = ['llamacpp', 'vllm', 'mtplx'] as const;

export function isDeployRunner(runner: string): runner is (typeof DEPLOY_RUNNERS)[number] {
  return (DEPLOY_RUNNERS as readonly string[]).includes(runner);
}

/**
 * spec §2.7: a cloud instance type is a family and a size separated by a dot (`g6e.xlarge`); empty
 * means the control plane's default. One rule for every way a deploy config arrives: the schema
 * checks start and push bodies with it, instanceTypeProblem() a fleet file and a remote deploy.
 */
export const INSTANCE_TYPE_PATTERN = '^(?:[a-z0-9][a-z0-9-]*\\.[a-z0-9][a-z0-9-]*)?$';
const INSTANCE_TYPE = new RegExp(INSTANCE_TYPE_PATTERN);

export function instanceTypeProblem(value: unknown): string | undefined {
  return typeof value === 'string' && INSTANCE_TYPE.test(value)
    ? undefined
    : `${JSON.stringify(value)} is not an instance type: give a family and a size, as in g6e.xlarge`;
}

/** An OpenAI-compatible path prefix: absolute, no query, fragment or whitespace. */
export const ENGINE_PATH_PATTERN = '^/[^\\s?#]*$';

export const CompanionsSchema = Type.Object(
  {
    draft: Type.Optional(Type.String({ minLength: 1 })),
    mmproj: Type.Optional(Type.String({ minLength: 1 })),
  },
  {
    additionalProperties: false,
    description: 'Companion weights keyed by role; bare filenames within the model repo',
  },
);

export const DeployConfigSchema = Type.Object(
  {
    runner: Type.Union(
      DEPLOY_RUNNERS.map((runner) => Type.Literal(runner)),
      { description: 'Engine to run; no default' },
    ),
    modelId: Type.Optional(Type.String({ description: 'Hub repo or local path of the weights' })),
    quant: Type.Optional(Type.String({ description: 'Quantisation, where the runner takes one' })),
    contextSize: Type.Optional(Type.Integer({ minimum: 0 })),
    parallel: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Concurrent request slots; 0 or absent = unset' }),
    ),
    servedModelName: Type.Optional(Type.String()),
    serveArgs: Type.Optional(
      Type.Array(Type.String(), { description: 'Runner flags, pre-tokenised' }),
    ),
    companions: Type.Optional(CompanionsSchema),
    spinloopVersion: Type.Optional(Type.String()),
    instanceType: Type.Optional(
      Type.String({
        pattern: INSTANCE_TYPE_PATTERN,
        title: 'a family and a size separated by a dot, such as g6e.xlarge',
        description:
          'Cloud instance type (family.size); empty or absent: the control plane default. The daemon does not act on it',
      }),
    ),
    // docs/design.md D32: the prompt cache kept across graceful stops (llama.cpp only).
    keepCache: Type.Optional(
      Type.Boolean({
        description:
          "Extension (not in the spec): save the engine's slots before a graceful stop and restore them after the next start (llamacpp only; default false)",
      }),
    ),
    keepCacheMax: Type.Optional(
      Type.String({
        pattern: SIZE_PATTERN,
        title: 'a size, such as 8GiB or 500MB',
        description:
          'Extension (not in the spec): the slot files kept, oldest removed first (default 8GiB)',
      }),
    ),
    // docs/design.md D23 extension: a BASEURL path reaches the status's engine.path (spec §2.2).
    enginePath: Type.Optional(
      Type.String({
        pattern: ENGINE_PATH_PATTERN,
        title: 'a path starting with /, such as /api/v1',
        description:
          "Extension (not in the spec): a path starting with /, such as /api/v1: where the engine's OpenAI-compatible API is when not /v1 (a Svcfile BASEURL's path); reported as engine.path, never passed to the engine",
      }),
    ),
  },
  { additionalProperties: false },
);

export type DeployConfig = Static<typeof DeployConfigSchema>;
