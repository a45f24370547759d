/**
 * DeployConfig and StartRequest (spec §2.3, §2.7): what a client asks a daemon to serve. The
 * schema is the one source of the field names; the TypeScript types are derived from it.
 */
import { type Static, Type } from '@sinclair/typebox';

/** spec §2.7: omlx is not a deployable runner. */
export const DEPLOY_RUNNERS = ['llamacpp', 'vllm', 'mtplx'] as const;

export function isDeployRunner(runner: string): runner is (typeof DEPLOY_RUNNERS)[number] {
  return (DEPLOY_RUNNERS as readonly string[]).includes(runner);
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
    instanceType: Type.Optional(Type.String()),
    // GUIDE D23 extension: a BASEURL path reaches the status's engine.path (spec §2.2).
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
