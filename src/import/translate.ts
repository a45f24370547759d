/**
 * A llama-swap configuration → the files `svc import llama-swap` writes (docs/design.md D27):
 * `fleet.yaml` and `<model id>/Svcfile` (plus `preset.ini` there when flags need one), and what
 * could not carry over, by model. Pure: the text, its name and the environment (for
 * `${env.X}` macros) in; paths relative to the output directory and texts out, or every problem
 * that makes the configuration unreadable, each naming its line and field.
 */
import { failed, ok, type Result } from '../core/project/diagnostics.ts';
import { SVCFILE } from '../core/project/load.ts';
import { type ConfigYaml, readConfigYaml } from './config-yaml.ts';
import { type FleetModel, fleetText } from './fleet-text.ts';
import { ENV_FILE, GATEWAY_TOKEN_ENV, TOKEN_PLACEHOLDER } from './gateway-section.ts';
import type { Environment } from './macros.ts';
import { type ImportedModel, importModel } from './model-import.ts';
import { type ModelLosses, type NotCarried, unknownKey } from './not-carried.ts';
import { modelFiles, PRESET_FILE } from './svcfile-text.ts';

export const FLEET_FILE = 'fleet.yaml';

export interface PlannedFile {
  /** Relative to the output directory, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

export interface ImportPlan {
  readonly files: readonly PlannedFile[];
  readonly losses: readonly ModelLosses[];
}

/** Top-level settings svc has no place for, each with the reason. */
const NO_PLACE: Readonly<Record<string, string>> = {
  healthCheckTimeout:
    "svc's gateway waits for a woken engine up to its --wake-timeout (default 5m): pass svc gateway --wake-timeout",
  logLevel: "svc's own log level is --log-level or SVC_LOG_LEVEL",
  logTimeFormat: 'svc writes its own log format',
  logToStdout: "svc's gateway logs its own lines; an engine's output goes to its node's engine.log",
  metricsMaxInMemory: "llama-swap's in-memory metrics; svc's are Prometheus series on /metrics",
  captureBuffer: 'svc does not capture request and reply bodies',
  sendLoadingState:
    "svc's gateway reports a wake as SSE comments on a waiting stream, not in reasoning_content",
  includeAliasesInList:
    "svc lists a node's aliases in /v1/models unless the node is unlisted (docs/fleet-file.md)",
  profiles: 'svc has no profiles: one fleet file is one set of nodes',
  // Keys of llama-swap's earlier and newest formats, so their configurations import too.
  logRequests: "svc's gateway logs every request (successful ones at debug: --log-level debug)",
  unloadTimeout: 'svc stops an engine with SIGTERM, then SIGKILL after 10 s',
  ui: "llama-swap's web UI settings; svc's fleet page has its own",
  store: 'svc keeps the last 1,000 requests in memory (GET /v1/fleet/activity)',
  performance: "svc samples each engine's own metrics (Prometheus series on /metrics)",
};

/** Handled by the translation. */
const HANDLED = new Set([
  'startPort',
  'models',
  'macros',
  'globalTTL',
  'groups',
  'matrix',
  'hooks',
  'apiKeys',
  'peers',
]);

/** Every top-level key of a llama-swap configuration, for naming the closest to one it lacks. */
const CONFIG_KEYS = [...HANDLED, ...Object.keys(NO_PLACE)];

/** llama-swap's first `${PORT}` when the configuration names no startPort. */
const DEFAULT_START_PORT = 5800;

/**
 * llama-swap's `${PORT}` numbering: startPort, then one more for each model whose cmd or proxy
 * takes `${PORT}`, in the order of the model ids (llama-swap sorts them, its map having none),
 * so the engines keep the ports people's firewall rules and clients know.
 */
function numberPorts(models: readonly ImportedModel[], startPort: number): Map<string, number> {
  const ports = new Map<string, number>();
  const ids = models.filter((model) => model.usesPort).map((model) => model.id);
  for (const [index, id] of [...ids].sort().entries()) {
    ports.set(id, startPort + index);
  }
  return ports;
}

const SAFE_DIRECTORY = /^[A-Za-z0-9][A-Za-z0-9._@+:-]*$/;

/** The model's directory: its id where that is a safe single folder name, else a cleaned one. */
function directoryFor(id: string, taken: Set<string>): string {
  const wanted = SAFE_DIRECTORY.test(id)
    ? id
    : id.replace(/[^A-Za-z0-9._@+:-]/g, '-').replace(/^[^A-Za-z0-9]+/, '') || 'model';
  let name = wanted;
  for (let index = 2; taken.has(name.toLowerCase()); index += 1) {
    name = `${wanted}-${index}`;
  }
  taken.add(name.toLowerCase());
  return name;
}

function configLosses(config: Record<string, unknown>): NotCarried[] {
  const losses: NotCarried[] = [];
  for (const key of Object.keys(config)) {
    if (!HANDLED.has(key)) {
      losses.push({ what: key, why: NO_PLACE[key] ?? unknownKey(key, CONFIG_KEYS) });
    }
  }
  const keys = config['apiKeys'];
  if (Array.isArray(keys) && keys.length > 0) {
    // docs/design.md D5: the keys themselves are never shown or written.
    losses.push({
      what: `apiKeys (${keys.length}, not shown)`,
      why: "svc's gateway takes one token, from the variable the fleet file's gateway.tokenEnv names (default OPENAI_API_KEY)",
    });
  }
  const peers = config['peers'];
  if (typeof peers === 'object' && peers !== null) {
    losses.push({
      what: `peers ${Object.keys(peers).join(', ')}`,
      why: 'write each as a kind: upstream node (url, apiKeyEnv, models; docs/fleet-file.md), its key in the .env beside the fleet file',
    });
  }
  return losses;
}

export function importLlamaSwap(
  text: string,
  source: string,
  env: Environment,
): Result<ImportPlan> {
  const read = readConfigYaml(text, source);
  if (!read.ok) {
    return read;
  }
  const yaml: ConfigYaml = read.value;
  const config = read.value.data;
  const problems: string[] = [];
  const problem = (message: string): void => {
    problems.push(message);
  };
  if (typeof config !== 'object' || config === null || Array.isArray(config)) {
    return failed(
      [`${source}: expected a llama-swap configuration, a mapping with models:`],
      'ERR_IMPORT',
    );
  }
  const settings = config as Record<string, unknown>;
  const models = settings['models'];
  if (
    typeof models !== 'object' ||
    models === null ||
    Array.isArray(models) ||
    Object.keys(models).length === 0
  ) {
    return failed(
      [`${yaml.where(['models'])}: models is required: a mapping of model ids to their cmd`],
      'ERR_IMPORT',
    );
  }

  const origin = source.split(/[\\/]/).pop() ?? source;
  const taken = new Set<string>();
  const files: PlannedFile[] = [];
  const fleetModels: FleetModel[] = [];
  const byModel = new Map<string, NotCarried[]>();
  const imported: ImportedModel[] = [];
  for (const [id, raw] of Object.entries(models as Record<string, unknown>)) {
    const outcome = importModel(id, raw, { macros: settings['macros'], yaml, env }, problem);
    byModel.set(id, [...outcome.losses]);
    if (outcome.model !== undefined) {
      imported.push(outcome.model);
    }
  }
  const startPort = settings['startPort'] ?? DEFAULT_START_PORT;
  if (
    typeof startPort !== 'number' ||
    !Number.isInteger(startPort) ||
    startPort < 1 ||
    startPort > 65_535
  ) {
    problem(`${yaml.where(['startPort'])}: startPort is a port number, 1 to 65535`);
  }
  const ports = numberPorts(
    imported,
    typeof startPort === 'number' ? startPort : DEFAULT_START_PORT,
  );
  for (const found of imported) {
    const id = found.id;
    const losses = byModel.get(id) ?? [];
    const port = ports.get(id);
    const model =
      port === undefined || found.fields.port !== undefined
        ? found
        : { ...found, fields: { host: '127.0.0.1', ...found.fields, port } };
    const directory = directoryFor(id, taken);
    const written = modelFiles(model, directory, origin);
    losses.push(...written.notes);
    files.push({ path: `${directory}/${SVCFILE}`, text: written.svcfile });
    if (written.preset !== undefined) {
      files.push({ path: `${directory}/${PRESET_FILE}`, text: written.preset });
    }
    fleetModels.push({
      id,
      node: directory,
      file: `${directory}/${SVCFILE}`,
      ...(model.ttl === undefined ? {} : { ttl: model.ttl }),
      ...(model.slots === undefined ? {} : { slots: model.slots }),
      names: model.names,
    });
  }
  const fleet = fleetText(settings, Object.keys(models), fleetModels, yaml, problem);
  if (problems.length > 0) {
    return failed(problems, 'ERR_IMPORT');
  }
  if (fleetModels.length === 0) {
    return failed(
      [
        `${source}: no model could be carried over: ${[...byModel].map(([id, losses]) => `"${id}" (${losses[0]?.why ?? 'no cmd'})`).join('; ')}`,
      ],
      'ERR_IMPORT',
    );
  }
  for (const [id, losses] of fleet.modelLosses) {
    byModel.get(id)?.push(...losses);
  }
  return ok({
    files: [
      { path: FLEET_FILE, text: fleet.text },
      { path: ENV_FILE, text: `${GATEWAY_TOKEN_ENV}=${TOKEN_PLACEHOLDER}\n` },
      ...files,
    ],
    losses: [
      { items: [...configLosses(settings), ...fleet.losses] },
      ...[...byModel].map(([model, items]) => ({ model, items })),
    ],
  });
}
