/**
 * EngineSpec → the exact command an engine runs. Pure: `serve --dry-run` prints what this returns,
 * the runner spawns it. Flag order: the preset's `[*]`, then its section, then what the Svcfile
 * (or deploy config) states, each later layer replacing an earlier entry in place (spec §1.4);
 * then verbatim extra args, the metrics switch and the key file.
 */
import { SvcError } from '../errors.ts';
import { mergeLayers, type Param, presetParams, renderParams } from './dialect.ts';
import type { EngineSpec } from './engine-spec.ts';
import { ENGINES, type FieldFlag } from './engine-table.ts';

export interface EngineCommand {
  /** Executable name as looked up on PATH (locate-binary.ts resolves it). */
  readonly bin: string;
  readonly args: readonly string[];
}

function field(flag: FieldFlag, value: string): Param {
  return {
    key: flag.key,
    flag: flag.flag,
    value,
    explicit: true,
    ...(flag.replaces ? { replaces: flag.replaces } : {}),
  };
}

/** The Svcfile/deploy-config layer, in one order for every engine: model, alias, context, slots, bind. */
function fieldParams(spec: EngineSpec): Param[] {
  const engine = ENGINES[spec.runner];
  const params: Param[] = [];
  if (spec.model !== undefined && typeof engine.model === 'function') {
    params.push(field(engine.model(spec.model), spec.model));
  }
  params.push(...engine.always.map((flag) => field(flag, '')));
  if (spec.alias !== undefined && engine.alias !== undefined) {
    params.push(field(engine.alias, spec.alias));
  }
  if (spec.context !== undefined && engine.context !== undefined) {
    // spec §1.3: llama.cpp's ctx-size is shared by all slots, so one request's window × PARALLEL.
    const slots = engine.scalesContextByParallel ? (spec.parallel ?? 1) : 1;
    params.push(field(engine.context, String(spec.context * slots)));
  }
  if (spec.parallel !== undefined) {
    params.push(field(engine.parallel, String(spec.parallel)));
  }
  if (spec.host !== undefined) {
    params.push(field(engine.host, spec.host));
  }
  if (spec.port !== undefined) {
    params.push(field(engine.port, String(spec.port)));
  }
  return params;
}

export function buildCommand(spec: EngineSpec): EngineCommand {
  const engine = ENGINES[spec.runner];
  const layers = (spec.presetLayers ?? []).map((entries) => presetParams(engine.dialect, entries));
  const extra = presetParams(engine.dialect, spec.extraSettings ?? []);
  const flags = renderParams(engine.dialect, mergeLayers([...layers, fieldParams(spec), extra]));

  const args = [...engine.subcommand];
  if (engine.model === 'positional' && spec.model !== undefined) {
    args.push(spec.model);
  }
  args.push(...flags, ...(spec.extraArgs ?? []));
  if (
    spec.supervised === true &&
    engine.metricsFlag !== undefined &&
    !args.includes(engine.metricsFlag)
  ) {
    args.push(engine.metricsFlag);
  }
  if (spec.keepCache !== undefined) {
    if (engine.slotSaveFlag === undefined) {
      // Config parsing refuses keepCache on other runners with a user-facing reason.
      throw new SvcError('ERR_INTERNAL', `${spec.runner} cannot keep its prompt cache`);
    }
    args.push(engine.slotSaveFlag, spec.keepCache.dir);
  }
  if (spec.keyFile !== undefined) {
    if (engine.keyFileFlag === undefined) {
      // Callers refuse earlier with a user-facing reason; reaching here is a bug, never a leak.
      throw new SvcError('ERR_INTERNAL', `${spec.runner} has no key-file option`);
    }
    args.push(engine.keyFileFlag, spec.keyFile);
  }
  return { bin: engine.binaries[0] ?? spec.runner, args };
}
