/**
 * What svc knows about each engine it can run: the binary, how Svcfile fields become flags, how
 * the engine is gated with a key, how its health and metrics are read, where it listens by
 * default. One row per engine (spec §1.2–§1.4; facts from each engine's own docs). Pure
 * data; build-command.ts turns a row plus an EngineSpec into a command.
 */
import type { Dialect } from './dialect.ts';

export const RUNNERS = ['llamacpp', 'omlx', 'vllm', 'mtplx', 'command'] as const;
export type Runner = (typeof RUNNERS)[number];
/** The engines whose command svc builds from flags; `command` runs the Svcfile's own argv. */
export type FlagRunner = Exclude<Runner, 'command'>;

export function isRunner(value: string): value is Runner {
  return (RUNNERS as readonly string[]).includes(value);
}

/** A Svcfile field's flag: its spelling and the canonical slot it takes over in a preset. */
export interface FieldFlag {
  readonly flag: string;
  readonly key: string;
  readonly replaces?: readonly string[];
}

export interface EngineDefinition {
  readonly runner: Runner;
  /** Human name for messages and the serve view. */
  readonly label: string;
  /** Executables tried on PATH, in order. */
  readonly binaries: readonly string[];
  /** Absolute locations tried when none is on PATH (oMLX's app bundle). */
  readonly fallbackPaths: readonly string[];
  readonly subcommand: readonly string[];
  readonly installHint: string;
  readonly dialect: Dialect;
  /** MODEL (or a PRESET) is required to build a command. */
  readonly needsModel: boolean;
  /** How MODEL reaches the engine: a positional after the subcommand, or a flag. */
  readonly model: 'positional' | ((model: string) => FieldFlag) | 'ignored';
  /** Flags always added (mtplx `--download`). */
  readonly always: readonly FieldFlag[];
  readonly alias?: FieldFlag;
  readonly context?: FieldFlag;
  /** Absent for `command`: its argv is the Svcfile's COMMAND, not built from fields. */
  readonly parallel?: FieldFlag;
  /** spec §1.3: llamacpp's context flag sizes all slots together, so it is context × parallel. */
  readonly scalesContextByParallel: boolean;
  readonly host?: FieldFlag;
  readonly port?: FieldFlag;
  /** Flag that reads the engine key from a file; absent: the engine cannot be gated (spec §5 rule 5). */
  readonly keyFileFlag?: string;
  /** Switch that turns the Prometheus endpoint on for supervised runs (spec §1.4). */
  readonly metricsFlag?: string;
  /** Where the engine saves and restores slots; absent: no `keepCache` (docs/design.md D32). */
  readonly slotSaveFlag?: string;
  /** Prometheus dialect of the engine's /metrics; absent: no Prometheus endpoint. */
  readonly metrics?: 'llamacpp' | 'vllm';
  /**
   * docs/design.md D25: where the engine reports its request slots as JSON `total_slots`; absent:
   * nowhere.
   */
  readonly propsPath?: string;
  /** Readiness convention; absent: none known (ready stays absent, spec §2.1). */
  readonly health?: { readonly path: string; readonly readyWhen: '200' | '200-json-ok' };
  readonly defaultHost: string;
  readonly defaultPort: number;
}

const plain = (flag: string): FieldFlag => ({ flag, key: flag.replace(/^-+/, '') });

/** Short and alternative preset keys → the canonical flag name, from llama.cpp's own options. */
const LLAMACPP_ALIASES: Readonly<Record<string, string>> = {
  hf: 'hf-repo',
  hfr: 'hf-repo',
  hff: 'hf-file',
  hft: 'hf-token',
  ngl: 'n-gpu-layers',
  'gpu-layers': 'n-gpu-layers',
  fa: 'flash-attn',
  ctk: 'cache-type-k',
  ctv: 'cache-type-v',
  ub: 'ubatch-size',
  np: 'parallel',
  ns: 'sequences',
  cb: 'cont-batching',
  dt: 'defrag-thold',
  dev: 'device',
  ot: 'override-tensor',
  sm: 'split-mode',
  ts: 'tensor-split',
  mg: 'main-gpu',
  mm: 'mmproj',
  mmu: 'mmproj-url',
  mu: 'model-url',
  tb: 'threads-batch',
  to: 'timeout',
  kvu: 'kv-unified',
  md: 'model-draft',
  'spec-draft-model': 'model-draft',
  hfd: 'hf-repo-draft',
  hfrd: 'hf-repo-draft',
  'spec-draft-hf': 'hf-repo-draft',
  ngld: 'n-gpu-layers-draft',
  'gpu-layers-draft': 'n-gpu-layers-draft',
  'spec-draft-ngl': 'n-gpu-layers-draft',
  t: 'threads',
  c: 'ctx-size',
  n: 'n-predict',
  b: 'batch-size',
  s: 'seed',
  m: 'model',
  a: 'alias',
  v: 'verbose',
  p: 'prompt',
};

const LLAMACPP_BOOLEANS = new Set([
  'mmap',
  'no-mmap',
  'jinja',
  'no-jinja',
  'kv-unified',
  'no-kv-unified',
  'cont-batching',
  'no-cont-batching',
  'mlock',
  'embedding',
  'embeddings',
  'verbose',
  'cpu-moe',
  'color',
  'mmproj-auto',
  'no-mmproj',
  'no-mmproj-auto',
  'metrics',
  'slots',
  'no-slots',
  'props',
  'no-webui',
  'offline',
  'check-tensors',
  'no-warmup',
  'swa-full',
  'context-shift',
  'no-context-shift',
  'reranking',
  'rerank',
  'spec-default',
]);

const PASS_THROUGH: Dialect = { aliases: {}, booleans: new Set() };

/**
 * llama.cpp: a hub repo goes to -hf, anything path-like or ending .gguf to -m (docs/design.md D2).
 */
export function isModelPath(model: string): boolean {
  const lower = model.toLowerCase();
  return (
    lower.endsWith('.gguf') ||
    /^(\/|\.\/|\.\.\/|~)/.test(model) ||
    model === '.' ||
    model === '..' ||
    /^[a-z]:[\\/]/i.test(model)
  );
}

const MODEL_SOURCE = ['hf-repo', 'model'] as const;

/** An engine svc builds a command for from flags: it always has slot and bind flags. */
export type FlagEngineDefinition = EngineDefinition &
  Required<Pick<EngineDefinition, 'parallel' | 'host' | 'port'>>;

export const ENGINES: Readonly<
  Record<FlagRunner, FlagEngineDefinition> & Record<'command', EngineDefinition>
> = {
  llamacpp: {
    runner: 'llamacpp',
    label: 'llama.cpp',
    binaries: ['llama-server'],
    fallbackPaths: [],
    subcommand: [],
    installHint:
      'install llama.cpp (for example `brew install llama.cpp`) or put llama-server on PATH',
    dialect: { aliases: LLAMACPP_ALIASES, booleans: LLAMACPP_BOOLEANS },
    needsModel: true,
    model: (model) =>
      isModelPath(model)
        ? { flag: '-m', key: 'model', replaces: MODEL_SOURCE }
        : { flag: '-hf', key: 'hf-repo', replaces: MODEL_SOURCE },
    always: [],
    alias: plain('--alias'),
    context: plain('--ctx-size'),
    parallel: plain('--parallel'),
    scalesContextByParallel: true,
    host: plain('--host'),
    port: plain('--port'),
    keyFileFlag: '--api-key-file',
    metricsFlag: '--metrics',
    slotSaveFlag: '--slot-save-path',
    metrics: 'llamacpp',
    propsPath: '/props',
    health: { path: '/health', readyWhen: '200' },
    defaultHost: '127.0.0.1',
    defaultPort: 8080,
  },
  vllm: {
    runner: 'vllm',
    label: 'vLLM',
    binaries: ['vllm'],
    fallbackPaths: [],
    subcommand: ['serve'],
    installHint: 'install vLLM (`pip install vllm`) or put vllm on PATH',
    dialect: PASS_THROUGH,
    needsModel: true,
    model: 'positional',
    always: [],
    alias: plain('--served-model-name'),
    context: plain('--max-model-len'),
    parallel: plain('--max-num-seqs'),
    scalesContextByParallel: false,
    host: plain('--host'),
    port: plain('--port'),
    metrics: 'vllm',
    health: { path: '/health', readyWhen: '200' },
    defaultHost: '0.0.0.0',
    defaultPort: 8000,
  },
  omlx: {
    runner: 'omlx',
    label: 'oMLX',
    binaries: ['omlx', 'omlx-cli'],
    fallbackPaths: ['/Applications/oMLX.app/Contents/MacOS/omlx-cli'],
    subcommand: ['serve'],
    installHint: 'install oMLX (https://omlx.ai) or put omlx on PATH',
    dialect: PASS_THROUGH,
    needsModel: false,
    // spec §1.4: oMLX picks the model per request; MODEL, ALIAS and CONTEXT are not launch flags.
    model: 'ignored',
    always: [],
    parallel: plain('--max-concurrent-requests'),
    scalesContextByParallel: false,
    host: plain('--host'),
    port: plain('--port'),
    health: { path: '/health', readyWhen: '200' },
    defaultHost: '127.0.0.1',
    defaultPort: 8000,
  },
  mtplx: {
    runner: 'mtplx',
    label: 'MTPLX',
    binaries: ['mtplx'],
    fallbackPaths: [],
    subcommand: ['serve'],
    installHint: 'install MTPLX (https://mtplx.com) or put mtplx on PATH',
    dialect: PASS_THROUGH,
    needsModel: true,
    model: () => plain('--model'),
    always: [plain('--download')],
    alias: plain('--model-id'),
    context: plain('--context-window'),
    parallel: plain('--max-active-requests'),
    scalesContextByParallel: false,
    host: plain('--host'),
    port: plain('--port'),
    // docs/design.md D9: gated through --api-key-file, written before launch.
    keyFileFlag: '--api-key-file',
    health: { path: '/health', readyWhen: '200-json-ok' },
    defaultHost: '127.0.0.1',
    defaultPort: 8000,
  },
  // docs/design.md D31: any program as an engine. Its argv is the Svcfile's COMMAND with
  // ${PORT} replaced (build-command.ts); its readiness path is the Svcfile's HEALTH.
  command: {
    runner: 'command',
    label: 'command',
    binaries: [],
    fallbackPaths: [],
    subcommand: [],
    installHint: "install the program COMMAND names, or give COMMAND the program's path",
    dialect: PASS_THROUGH,
    needsModel: false,
    model: 'ignored',
    always: [],
    scalesContextByParallel: false,
    health: { path: '/health', readyWhen: '200' },
    defaultHost: '127.0.0.1',
    defaultPort: 8080,
  },
};
