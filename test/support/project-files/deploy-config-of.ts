/**
 * A Svcfile (+ preset) taken the fleet's way to the deploy config a node is started with, through
 * the real parser and resolver: the result, or the config itself when the test expects one.
 */
import type { DeployConfig } from '../../../src/core/contract/schemas.ts';
import { deployConfigFromSpec } from '../../../src/core/project/deploy-config-from-project.ts';
import { type Result, unwrap } from '../../../src/core/project/diagnostics.ts';
import { parseSvcfile } from '../../../src/core/project/parse.ts';
import { parsePreset } from '../../../src/core/project/preset.ts';
import { resolveProject } from '../../../src/core/project/resolve.ts';

export function deploy(svcfile: string, preset?: string): Result<DeployConfig> {
  const project = unwrap(parseSvcfile(svcfile, 'Svcfile'));
  const resolved = unwrap(
    resolveProject({
      project,
      supervised: false,
      ...(preset === undefined
        ? {}
        : { preset: { preset: unwrap(parsePreset(preset, 'p.ini')), source: 'p.ini' } }),
    }),
  );
  return deployConfigFromSpec(resolved.spec, 'nodes/gpu/Svcfile');
}

export function config(svcfile: string, preset?: string): DeployConfig {
  const result = deploy(svcfile, preset);
  if (!result.ok) {
    throw new Error(`expected a deploy config, got:\n${result.problems.join('\n')}`);
  }
  return result.value;
}
