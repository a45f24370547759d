/**
 * A Svcfile as a deploy config (spec §2.7): what a gateway or `svc fleet start` sends a daemon
 * node so it runs what the node's own Svcfile describes, the same engine command `svc serve`
 * runs from it. The model and the served name come from the Svcfile or its preset; CONTEXT and
 * PARALLEL become contextSize and parallel, which the daemon translates as serve does; the rest
 * of the preset, its own context and slot settings included, travels as serveArgs, and BASEURL as
 * the engine's --host/--port and its path as enginePath (what the daemon reports as engine.path).
 * Pure.
 */
import type { DeployConfig } from '../contract/deploy-config.ts';
import { DEPLOY_RUNNERS, isDeployRunner } from '../contract/deploy-config.ts';
import { canonicalKey, mergeLayers, presetParams, renderParams } from '../engines/dialect.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { ENGINES, isModelPath } from '../engines/engine-table.ts';
import { failed, ok, type Result } from './diagnostics.ts';

/** Preset keys the daemon sets itself from deploy-config fields, or never takes from a preset. */
const NODE_OWNED = new Set([
  'model',
  'model-url',
  'hf-repo',
  'hf-file',
  'hf-token',
  'api-key',
  'api-key-file',
  'alias',
  'metrics',
  'served-model-name',
  'model-id',
  'download',
]);

function presetValue(spec: EngineSpec, keys: readonly string[]): string | undefined {
  const engine = ENGINES[spec.runner];
  const entries = (spec.presetLayers ?? []).flat();
  const wanted = new Set(keys);
  const found = entries
    .filter((entry) => wanted.has(canonicalKey(engine.dialect, entry.key)))
    .at(-1);
  return found?.value;
}

export function deployConfigFromSpec(spec: EngineSpec, source: string): Result<DeployConfig> {
  const runner = spec.runner;
  if (!isDeployRunner(runner)) {
    // docs/design.md D31: spec §2.7 fixes the deploy config's runner, so a command is local-only.
    const local = runner === 'command' ? ' or make the node kind: local' : '';
    return failed([
      `${source}: PROVIDER ${runner} cannot run on a daemon node (use ${DEPLOY_RUNNERS.join(', ')}); run it with svc serve --api on its machine${local}`,
    ]);
  }
  if (spec.binary !== undefined) {
    return failed([
      `${source}: ENGINE ${spec.binary} cannot run on a daemon node (a deploy config names no executable, spec §2.7: the daemon runs the engine on its PATH); make the node kind: local, or put that build first on the daemon's PATH`,
    ]);
  }
  const engine = ENGINES[runner];
  const model = spec.model ?? presetValue(spec, ['hf-repo', 'model']);
  if (model === undefined) {
    return failed([`${source}: nothing to deploy: set MODEL, or name the model in its preset`]);
  }
  // llama.cpp hub repos carry their quant after a colon; the daemon puts it back.
  const split = runner === 'llamacpp' && !isModelPath(model) ? model.indexOf(':') : -1;
  const modelId = split < 0 ? model : model.slice(0, split);
  const quant = split < 0 ? undefined : model.slice(split + 1);
  // spec §1.3 rule 2: the daemon scales contextSize by parallel for llama.cpp, which is right
  // only for a Svcfile's CONTEXT and PARALLEL; a preset's own ctx-size and np stay as written.
  const contextSize = spec.context;
  const parallel = spec.parallel;
  const restated = new Set([
    ...(contextSize === undefined || engine.context === undefined ? [] : [engine.context.key]),
    ...(parallel === undefined ? [] : [engine.parallel.key]),
  ]);

  // ALIAS, else the preset's own alias: the name the engine answers to.
  const servedModelName =
    spec.alias ?? (engine.alias === undefined ? undefined : presetValue(spec, [engine.alias.key]));
  const passThrough = mergeLayers(
    (spec.presetLayers ?? []).map((layer) => presetParams(engine.dialect, layer)),
  ).filter((param) => !NODE_OWNED.has(param.key) && !restated.has(param.key));
  const serveArgs = renderParams(engine.dialect, passThrough);
  // BASEURL decides where the engine listens; it replaces the preset's host/port in place.
  const bind = [
    ...(spec.host === undefined ? [] : [engine.host.flag, spec.host]),
    ...(spec.port === undefined ? [] : [engine.port.flag, String(spec.port)]),
  ];
  // Only the parts BASEURL states replace the preset's; a preset port stays with a BASEURL host.
  const withoutBind = dropFlags(serveArgs, [
    ...(spec.host === undefined ? [] : [engine.host.flag]),
    ...(spec.port === undefined ? [] : [engine.port.flag]),
  ]);

  return ok({
    runner,
    modelId,
    ...(quant === undefined || quant === '' ? {} : { quant }),
    ...(contextSize === undefined ? {} : { contextSize }),
    ...(parallel === undefined ? {} : { parallel }),
    ...(servedModelName === undefined ? {} : { servedModelName }),
    serveArgs: [...withoutBind, ...bind],
    ...(spec.path === undefined ? {} : { enginePath: spec.path }),
  });
}

function dropFlags(args: readonly string[], flags: readonly string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index] ?? '';
    if (flags.includes(arg)) {
      index += 1;
      continue;
    }
    out.push(arg);
  }
  return out;
}
