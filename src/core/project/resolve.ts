/**
 * RawProject (+ its preset) → EngineSpec (spec §1.2–§1.4). Pure: checks that `serve` can run the
 * PROVIDER, that a model is named where the engine needs one, and picks the preset section;
 * build-command.ts does the flag rules. Every problem is reported at once.
 */
import { PORT_PLACEHOLDER } from '../engines/build-command.ts';
import type { CommandSpec, EngineSpec } from '../engines/engine-spec.ts';
import { ENGINES, isRunner, RUNNERS } from '../engines/engine-table.ts';
import { failed, ok, type Result } from './diagnostics.ts';
import type { RawProject } from './parse.ts';
import { type Preset, selectSection } from './preset.ts';

export interface ResolveInputs {
  readonly project: RawProject;
  /** The parsed preset and where it came from, when the Svcfile names one. */
  readonly preset?: { readonly preset: Preset; readonly source: string };
  /**
   * docs/design.md D3: the daemon, `serve --api` and `serve` with its view switch engine metrics
   * on.
   */
  readonly supervised: boolean;
}

const MODEL_HINTS: Readonly<Record<string, string>> = {
  llamacpp: 'a hub repo such as org/model-GGUF:Q4_K_M, or a path to a .gguf file',
  vllm: 'a hub repo such as org/model, or a local model directory',
  mtplx: 'a hub repo or a local model path',
};

export interface ResolvedProject {
  readonly spec: EngineSpec;
  /** The preset section in use, for the narration line. */
  readonly section?: string;
}

export function resolveProject({
  project,
  preset,
  supervised,
}: ResolveInputs): Result<ResolvedProject> {
  const provider = project.provider.value;
  if (!isRunner(provider)) {
    return failed(
      [
        `${project.source}:${project.provider.line}: PROVIDER "${provider}" cannot be served: svc serve runs ${RUNNERS.join(', ')}`,
      ],
      'ERR_PROVIDER_UNSUPPORTED',
    );
  }
  const wrong = keywordProblems(project, provider);
  if (wrong.length > 0) {
    return failed(wrong);
  }
  const engine = ENGINES[provider];
  if (engine.needsModel && project.model === undefined && project.preset === undefined) {
    return failed([
      `${project.source}: PROVIDER ${provider} needs a MODEL (${MODEL_HINTS[provider] ?? 'the model to serve'}) or a PRESET that names one`,
    ]);
  }

  let presetLayers: EngineSpec['presetLayers'];
  let section: string | undefined;
  if (preset !== undefined) {
    const chosen = selectSection(preset.preset, project.alias?.value, preset.source);
    if (!chosen.ok) {
      return chosen;
    }
    presetLayers = [preset.preset.defaults, chosen.value.entries];
    section = chosen.value.name;
  }

  const base = project.baseUrl?.value;
  const spec: EngineSpec = {
    runner: provider,
    supervised,
    ...(project.model === undefined ? {} : { model: project.model.value }),
    ...(project.alias === undefined ? {} : { alias: project.alias.value }),
    ...(project.context === undefined ? {} : { context: project.context.value }),
    ...(project.parallel === undefined ? {} : { parallel: project.parallel.value }),
    ...(base?.host === undefined ? {} : { host: base.host }),
    ...(base?.port === undefined ? {} : { port: base.port }),
    ...(base === undefined || base.path === '' || base.path === '/v1' ? {} : { path: base.path }),
    ...(presetLayers === undefined ? {} : { presetLayers }),
    ...(project.engine === undefined ? {} : { binary: project.engine.value }),
    ...commandOf(project),
  };
  return ok(section === undefined ? { spec } : { spec, section });
}

/** docs/design.md D31: PROVIDER command's COMMAND, HEALTH and STOP as the spec carries them. */
function commandOf(project: RawProject): { command?: CommandSpec } {
  if (project.command === undefined) {
    return {};
  }
  return {
    command: {
      argv: project.command.value,
      health: project.health?.value ?? '/health',
      ...(project.stop === undefined ? {} : { stop: project.stop.value }),
    },
  };
}

/** Keywords that belong to another provider, or that svc cannot give the program it runs. */
function keywordProblems(project: RawProject, provider: string): string[] {
  const at = (line: number): string => `${project.source}:${line}`;
  const problems: string[] = [];
  if (provider === 'command') {
    if (project.command === undefined) {
      problems.push(
        `${project.source}: PROVIDER command needs COMMAND <program and its arguments>, with \${PORT} where it takes its port`,
      );
    } else if (
      !project.command.value.some((word) => word.includes(PORT_PLACEHOLDER)) &&
      project.baseUrl?.value.port === undefined
    ) {
      problems.push(
        `${at(project.command.line)}: COMMAND does not use \${PORT}, so BASEURL must name the port the program listens on`,
      );
    }
    for (const [keyword, located] of [
      ['CONTEXT', project.context],
      ['PARALLEL', project.parallel],
      ['PRESET', project.preset],
      ['ENGINE', project.engine],
    ] as const) {
      if (located !== undefined) {
        problems.push(
          `${at(located.line)}: PROVIDER command takes no ${keyword}: svc cannot hand it to an arbitrary program; write it into COMMAND`,
        );
      }
    }
    return problems;
  }
  for (const [keyword, located] of [
    ['COMMAND', project.command],
    ['HEALTH', project.health],
    ['STOP', project.stop],
  ] as const) {
    if (located !== undefined) {
      problems.push(
        `${at(located.line)}: ${keyword} is for PROVIDER command only; PROVIDER ${provider} runs ${ENGINES[provider as keyof typeof ENGINES].label}, whose command, readiness check and stop svc knows`,
      );
    }
  }
  if (project.engine !== undefined) {
    if (provider !== 'llamacpp') {
      problems.push(
        `${at(project.engine.line)}: ENGINE is for PROVIDER llamacpp only (a llama-server build by path)`,
      );
    } else if (!project.engine.value.startsWith('/')) {
      problems.push(
        `${at(project.engine.line)}: ENGINE "${project.engine.value}" must be an absolute path to a llama-server executable`,
      );
    }
  }
  return problems;
}
