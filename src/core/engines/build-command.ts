/**
 * EngineSpec → the exact command an engine runs. Pure: `serve --dry-run` prints what this returns,
 * the runner spawns it. Flag order: the preset's `[*]`, then its section, then what the Svcfile
 * (or deploy config) states, each later layer replacing an earlier entry in place (spec §1.4);
 * then verbatim extra args, the metrics switch and the key file.
 */
import type { EngineEndpoint } from '../contract/schemas.ts';
import { SvcError } from '../errors.ts';
import { mergeLayers, type Param, presetParams, renderParams } from './dialect.ts';
import { type EngineBind, engineEndpoint, localEngineUrl } from './engine-endpoint.ts';
import type { EngineSpec } from './engine-spec.ts';
import { type EngineDefinition, ENGINES, type FieldFlag } from './engine-table.ts';

export interface EngineCommand {
  /** Executable name as looked up on PATH (locate-binary.ts resolves it), or a path. */
  readonly bin: string;
  readonly args: readonly string[];
  /** `PROVIDER command`: where the program listens, which its argv does not say in flags. */
  readonly bind?: EngineBind;
}

/** docs/design.md D31: the placeholders COMMAND and STOP take. */
export const PORT_PLACEHOLDER = '${PORT}';
export const PID_PLACEHOLDER = '${PID}';

/** The engine's table row as this spec runs it: `PROVIDER command` checks readiness on HEALTH. */
export function engineOf(spec: EngineSpec): EngineDefinition {
  const engine = ENGINES[spec.runner];
  return spec.command === undefined
    ? engine
    : { ...engine, health: { path: spec.command.health, readyWhen: '200' } };
}

/**
 * docs/design.md D31: COMMAND with `${PORT}` replaced by BASEURL's port, or the port the
 * gateway or daemon chose (which arrives as the spec's port), else the row's default.
 */
function programCommand(spec: EngineSpec): EngineCommand {
  const engine = ENGINES.command;
  const port = spec.port ?? engine.defaultPort;
  const [bin, ...args] = (spec.command?.argv ?? []).map((word) =>
    word.replaceAll(PORT_PLACEHOLDER, String(port)),
  );
  if (bin === undefined) {
    // resolve.ts refuses a PROVIDER command without COMMAND; reaching here is a bug.
    throw new SvcError('ERR_INTERNAL', 'PROVIDER command has no COMMAND');
  }
  return { bin, args, bind: { host: spec.host ?? engine.defaultHost, port } };
}

/** The program the Svcfile itself names (COMMAND's, ENGINE's), which is run as written. */
export function namedProgram(spec: EngineSpec, command: EngineCommand): string | undefined {
  return spec.runner === 'command' || spec.binary !== undefined ? command.bin : undefined;
}

/** Where the engine a spec runs answers (spec §2.2), and the URL this machine reaches it on. */
export function engineAddress(
  spec: EngineSpec,
  command: EngineCommand,
): { endpoint: EngineEndpoint; baseUrl: string } {
  const endpoint = engineEndpoint(spec.runner, command.args, {
    keyed: spec.keyFile !== undefined,
    ...(spec.path === undefined ? {} : { path: spec.path }),
    ...(command.bind === undefined ? {} : { bind: command.bind }),
  });
  const baseUrl = localEngineUrl(spec.runner, command.args, endpoint.port, command.bind);
  return { endpoint, baseUrl };
}

/** The STOP command for the engine running as `pid`, or undefined when the Svcfile has none. */
export function stopCommand(spec: EngineSpec, pid: number): string[] | undefined {
  return spec.command?.stop?.map((word) => word.replaceAll(PID_PLACEHOLDER, String(pid)));
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
  if (spec.parallel !== undefined && engine.parallel !== undefined) {
    params.push(field(engine.parallel, String(spec.parallel)));
  }
  if (spec.host !== undefined && engine.host !== undefined) {
    params.push(field(engine.host, spec.host));
  }
  if (spec.port !== undefined && engine.port !== undefined) {
    params.push(field(engine.port, String(spec.port)));
  }
  return params;
}

export function buildCommand(spec: EngineSpec): EngineCommand {
  if (spec.runner === 'command') {
    return programCommand(spec);
  }
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
  return { bin: spec.binary ?? engine.binaries[0] ?? spec.runner, args };
}
