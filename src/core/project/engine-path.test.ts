/**
 * A BASEURL's path is where clients find the engine's OpenAI-compatible API (spec §2.2 `path`):
 * never an engine flag, but carried to the status's `engine.path` whichever way the engine is
 * started: `serve` from the Svcfile, or a daemon from the deploy config the fleet derives
 * (docs/design.md D23 extension `enginePath`).
 */
import { describe, expect, it } from 'vitest';

import { buildCommand } from '../engines/build-command.ts';
import { engineEndpoint } from '../engines/engine-endpoint.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { specFromDeployConfig } from '../engines/from-deploy-config.ts';
import { deployConfigFromSpec } from './deploy-config-from-project.ts';
import { unwrap } from './diagnostics.ts';
import { parseSvcfile } from './parse.ts';
import { resolveProject } from './resolve.ts';

function served(baseUrl: string): EngineSpec {
  const svcfile = `PROVIDER llamacpp\nMODEL org/m\nBASEURL ${baseUrl}\n`;
  return unwrap(
    resolveProject({ project: unwrap(parseSvcfile(svcfile, 'Svcfile')), supervised: true }),
  ).spec;
}

/** The status's engine for a spec, as the supervisor reports it. */
function endpointOf(spec: EngineSpec): ReturnType<typeof engineEndpoint> {
  return engineEndpoint(spec.runner, buildCommand(spec).args, {
    keyed: false,
    ...(spec.path === undefined ? {} : { path: spec.path }),
  });
}

describe('BASEURL path → engine.path (spec §2.2)', () => {
  it.each(['127.0.0.1:8080/api/v1', 'http://127.0.0.1:8080/api/v1/'])(
    '%s: serve and a daemon node both report /api/v1, and the engine never sees it',
    (baseUrl) => {
      const spec = served(baseUrl);
      const deployed = unwrap(deployConfigFromSpec(spec, 'Svcfile'));
      expect(deployed.enginePath).toBe('/api/v1');
      const onNode = specFromDeployConfig(deployed);
      for (const started of [spec, onNode]) {
        expect(endpointOf(started)).toEqual({
          port: 8080,
          path: '/api/v1',
          loopbackOnly: true,
          requiresKey: false,
        });
        expect(buildCommand(started).args.join(' ')).not.toContain('/api');
      }
    },
  );

  it.each(['127.0.0.1:8080', 'http://127.0.0.1:8080/', 'http://127.0.0.1:8080/v1'])(
    '%s: the usual /v1, so no path is carried or reported',
    (baseUrl) => {
      const spec = served(baseUrl);
      const deployed = unwrap(deployConfigFromSpec(spec, 'Svcfile'));
      expect(deployed).not.toHaveProperty('enginePath');
      expect(endpointOf(spec)).not.toHaveProperty('path');
      expect(endpointOf(specFromDeployConfig(deployed))).not.toHaveProperty('path');
    },
  );
});
