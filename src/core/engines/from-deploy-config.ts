/**
 * The daemon's path to a command (spec §2.7): a DeployConfig plus the key file becomes the same
 * EngineSpec a Svcfile would, so both paths share build-command.ts. Pure: returns the spec or
 * every reason the config cannot be served.
 */
import type { DeployConfig } from '../contract/deploy-config.ts';
import { SvcError } from '../errors.ts';
import type { EngineSpec, SettingEntry } from './engine-spec.ts';
import { ENGINES, isModelPath } from './engine-table.ts';
import { keepCacheOf, keepCacheRunnerProblem } from './keep-cache.ts';

export interface DeployOptions {
  /** Path of the stored engine key file, when the start carries or reuses a key. */
  readonly keyFile?: string;
  /** Where this host keeps slot files for `keepCache` (docs/design.md D32). */
  readonly slotDir?: string;
}

/** A companion is a bare file name inside the model's own repo: no path, no traversal. */
function isBareFilename(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !/[/\\\0]/.test(name);
}

function companionSettings(config: DeployConfig, problems: string[]): SettingEntry[] {
  const companions = config.companions ?? {};
  const roles = (['draft', 'mmproj'] as const).filter((role) => companions[role] !== undefined);
  if (roles.length === 0) {
    return [];
  }
  if (config.runner !== 'llamacpp') {
    problems.push(`companions: ${config.runner} takes no companion weights (only llamacpp does)`);
    return [];
  }
  const model = config.modelId ?? '';
  const settings: SettingEntry[] = [];
  for (const role of roles) {
    const file = companions[role] ?? '';
    if (!isBareFilename(file)) {
      problems.push(
        `companions.${role}: "${file}" must be a bare file name within the model's repo, not a path`,
      );
      continue;
    }
    if (isModelPath(model)) {
      // A local model's "repo" is the directory it sits in.
      const directory = model.includes('/') ? model.slice(0, model.lastIndexOf('/')) : '.';
      settings.push({
        key: role === 'draft' ? 'model-draft' : 'mmproj',
        value: `${directory}/${file}`,
      });
    } else if (role === 'mmproj') {
      settings.push({
        key: 'mmproj-url',
        value: `https://huggingface.co/${model}/resolve/main/${file}`,
      });
    } else {
      problems.push(
        'companions.draft: llama-server cannot fetch a draft file from a hub repo by name; use a local modelId',
      );
    }
  }
  return settings;
}

export function specFromDeployConfig(
  config: DeployConfig,
  options: DeployOptions = {},
): EngineSpec {
  const problems: string[] = [];
  const engine = ENGINES[config.runner];
  const modelId = config.modelId === '' ? undefined : config.modelId;
  if (engine.needsModel && modelId === undefined) {
    problems.push('modelId: the deploy config names no model: set modelId');
  }

  let model = modelId;
  const extraSettings: SettingEntry[] = [];
  const quant = config.quant === '' ? undefined : config.quant;
  if (quant !== undefined) {
    if (config.runner === 'llamacpp') {
      if (modelId !== undefined && isModelPath(modelId)) {
        problems.push('quant: a quant selects a file in a hub repo, but modelId is a local path');
      } else {
        model = `${modelId ?? ''}:${quant}`;
      }
    } else if (config.runner === 'vllm') {
      extraSettings.push({ key: 'quantization', value: quant });
    } else {
      problems.push(`quant: ${config.runner} takes no quantisation setting`);
    }
  }
  extraSettings.push(...companionSettings(config, problems));

  if (options.keyFile !== undefined && engine.keyFileFlag === undefined) {
    // spec §5 rule 5, docs/design.md D9: never hand a key over on a command line any local user can
    // read.
    problems.push(
      `engineApiKey: ${config.runner} cannot be gated with an API key: it has no option to read one from a file, and svc will not pass a key on a command line`,
    );
  }
  // docs/design.md D32: refused on other runners; a host without a slot directory ignores it.
  let keepCache: EngineSpec['keepCache'];
  if (config.keepCache === true) {
    const refused = keepCacheRunnerProblem(config.runner, 'keepCache');
    const kept = keepCacheOf(options.slotDir ?? '', config.keepCacheMax, 'keepCacheMax');
    if (refused !== undefined) {
      problems.push(refused);
    } else if ('problem' in kept) {
      problems.push(kept.problem);
    } else if (options.slotDir !== undefined) {
      keepCache = kept.keepCache;
    }
  }
  if (problems.length > 0) {
    throw new SvcError('ERR_DEPLOY_CONFIG', problems.join('; '));
  }

  const positive = (value: number | undefined): number | undefined =>
    value !== undefined && value > 0 ? value : undefined;
  const context = positive(config.contextSize);
  const parallel = positive(config.parallel);
  const alias = config.servedModelName === '' ? undefined : config.servedModelName;
  const path =
    config.enginePath === undefined || config.enginePath === '/v1' ? undefined : config.enginePath;
  return {
    runner: config.runner,
    supervised: true,
    ...(model === undefined ? {} : { model }),
    ...(alias === undefined ? {} : { alias }),
    ...(context === undefined ? {} : { context }),
    ...(parallel === undefined ? {} : { parallel }),
    ...(extraSettings.length > 0 ? { extraSettings } : {}),
    ...(config.serveArgs === undefined ? {} : { extraArgs: config.serveArgs }),
    ...(options.keyFile === undefined ? {} : { keyFile: options.keyFile }),
    ...(path === undefined ? {} : { path }),
    ...(keepCache === undefined ? {} : { keepCache }),
  };
}
