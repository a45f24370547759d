/**
 * A Svcfile as a deploy config (spec §2.7): what a gateway or `svc fleet start` sends a daemon
 * node so it runs what the node's own Svcfile describes. The fields the daemon owns (model,
 * context, slots, name, metrics, keys) come from the Svcfile and its preset; the rest of the
 * preset travels as serveArgs, and BASEURL as the engine's --host/--port. Pure.
 */
import type { DeployConfig } from '../contract/deploy-config.ts';
import { DEPLOY_RUNNERS, isDeployRunner } from '../contract/deploy-config.ts';
import { canonicalKey, mergeLayers, presetParams, renderParams } from '../engines/dialect.ts';
import type { EngineSpec } from '../engines/engine-spec.ts';
import { ENGINES, isModelPath } from '../engines/engine-table.ts';
import { failed, ok, type Result } from './diagnostics.ts';

/** Preset keys the daemon sets itself from deploy-config fields; never passed through. */
const NODE_OWNED = new Set([
  'model',
  'model-url',
  'hf-repo',
  'hf-file',
  'hf-token',
  'api-key',
  'api-key-file',
  'ctx-size',
  'alias',
  'metrics',
  'parallel',
  'max-num-seqs',
  'max-model-len',
  'served-model-name',
  'max-active-requests',
  'context-window',
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

function positiveInteger(value: string | undefined): number | undefined {
  return value !== undefined && /^\d+$/.test(value) && Number(value) > 0
    ? Number(value)
    : undefined;
}

export function deployConfigFromSpec(spec: EngineSpec, source: string): Result<DeployConfig> {
  const runner = spec.runner;
  if (!isDeployRunner(runner)) {
    return failed([
      `${source}: PROVIDER ${runner} cannot run on a daemon node (use ${DEPLOY_RUNNERS.join(', ')})`,
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
  const contextKey = engine.context?.key;
  const contextSize =
    spec.context ??
    (contextKey === undefined ? undefined : positiveInteger(presetValue(spec, [contextKey])));
  const parallel = spec.parallel ?? positiveInteger(presetValue(spec, [engine.parallel.key]));

  // ALIAS, else the preset's own alias: the name the engine answers to.
  const servedModelName =
    spec.alias ?? (engine.alias === undefined ? undefined : presetValue(spec, [engine.alias.key]));
  const passThrough = mergeLayers(
    (spec.presetLayers ?? []).map((layer) => presetParams(engine.dialect, layer)),
  ).filter((param) => !NODE_OWNED.has(param.key));
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
