/**
 * The whole Svcfile pipeline in one call: locate → read → parse → preset → resolve, plus the
 * engine environment. `serve` builds and runs the result; the gateway will read a node's source
 * through the same path, so both agree on what a Svcfile means.
 */
import { unwrap } from './diagnostics.ts';
import {
  describeOrigin,
  type LocateContext,
  locateProject,
  type Origin,
  presetLocation,
  projectEnvironment,
  readOrigin,
  readPreset,
} from './load.ts';
import { withModelLocated } from './model-location.ts';
import { parseSvcfile, type RawProject } from './parse.ts';
import { parsePreset, type Preset } from './preset.ts';
import { type ResolvedProject, resolveProject } from './resolve.ts';

export interface OpenedProject extends ResolvedProject {
  readonly origin: Origin;
  readonly project: RawProject;
  /** Where the preset came from, when there is one. */
  readonly presetSource?: string;
  /** The engine's environment (process, .env, ENV lines). */
  readonly env: Record<string, string>;
  readonly notes: readonly string[];
}

export async function openProject(
  target: string | undefined,
  context: LocateContext & { readonly supervised: boolean },
): Promise<OpenedProject> {
  const located = await locateProject(target, context);
  const source = describeOrigin(located.origin);
  const project = withModelLocated(
    unwrap(parseSvcfile(await readOrigin(located.origin), source)),
    located.origin,
  );

  let preset: { preset: Preset; source: string } | undefined;
  if (project.preset !== undefined) {
    const location = presetLocation(project.preset.value, located.origin);
    const presetSource = describeOrigin(location);
    preset = {
      preset: unwrap(parsePreset(await readPreset(location), presetSource)),
      source: presetSource,
    };
  }
  const resolved = unwrap(
    resolveProject({ project, supervised: context.supervised, ...(preset ? { preset } : {}) }),
  );
  const env = await projectEnvironment(project, located.origin, context.env);
  return {
    ...resolved,
    origin: located.origin,
    project,
    env,
    notes: located.notes,
    ...(preset === undefined ? {} : { presetSource: preset.source }),
  };
}
