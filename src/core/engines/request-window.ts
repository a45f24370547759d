/**
 * What an engine started from a spec offers one agent request, read from facts svc holds before
 * the engine runs: the context window of one request, and whether it answers chat at all. Pure:
 * the spec and the engine command build-command.ts makes of it in, the figures out.
 */
import { buildCommand } from './build-command.ts';
import { configuredSlots, flagSpellings, lastValue } from './configured-slots.ts';
import type { EngineSpec } from './engine-spec.ts';
import { ENGINES, type Runner } from './engine-table.ts';

/**
 * Flags that turn an engine into a pooling server (embeddings, reranking, scores) that answers no
 * chat: llama.cpp's `--embedding`/`--embeddings` and `--rerank`/`--reranking`, vLLM's
 * `--task embed|score|…` and `--runner pooling`. Found in the engine's command line, whichever
 * layer (preset, serveArgs) put them there.
 */
const POOLING_SWITCHES: Readonly<Record<Runner, readonly string[]>> = {
  llamacpp: ['--embedding', '--embeddings', '--rerank', '--reranking'],
  vllm: [],
  omlx: [],
  mtplx: [],
  command: [],
};
const POOLING_VALUES: Readonly<Record<Runner, Readonly<Record<string, readonly string[]>>>> = {
  llamacpp: {},
  vllm: {
    '--task': ['embed', 'embedding', 'score', 'classify', 'reward'],
    '--runner': ['pooling'],
  },
  omlx: {},
  mtplx: {},
  command: {},
};

/** The flag (as written in the engine command) that makes it a non-chat server, if any. */
export function nonChatFlag(runner: Runner, args: readonly string[]): string | undefined {
  const switched = args.find((arg) => POOLING_SWITCHES[runner].includes(arg));
  if (switched !== undefined) {
    return switched;
  }
  for (const [flag, values] of Object.entries(POOLING_VALUES[runner])) {
    const value = lastValue(args, [flag]);
    if (value !== undefined && values.includes(value)) {
      return `${flag} ${value}`;
    }
  }
  return undefined;
}

export interface RequestWindow {
  /** Tokens one request may hold (prompt and reply); absent when nothing states it. */
  readonly context?: number;
  /** Where `context` comes from, for messages ("CONTEXT", "--ctx-size 16384 / 2 slots"). */
  readonly contextFrom?: string;
  /** The flag that makes the engine answer no chat (an embedding or reranking server). */
  readonly nonChat?: string;
}

function wholeNumber(text: string | undefined): number | undefined {
  if (text === undefined || !/^\d+$/.test(text)) {
    return undefined;
  }
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

/**
 * spec §1.3: a Svcfile's CONTEXT is the window of one request. Without one, the engine's own
 * context flag (a preset's ctx-size, serveArgs), which llama.cpp shares among its slots, so one
 * request gets it divided by the slots the command states.
 */
export function requestWindow(spec: EngineSpec): RequestWindow {
  const { args } = buildCommand(spec);
  const nonChat = nonChatFlag(spec.runner, args);
  const flags = nonChat === undefined ? {} : { nonChat };
  if (spec.context !== undefined) {
    return { context: spec.context, contextFrom: 'CONTEXT', ...flags };
  }
  const engine = ENGINES[spec.runner];
  if (engine.context === undefined) {
    return flags;
  }
  const total = wholeNumber(lastValue(args, flagSpellings(spec.runner, engine.context)));
  if (total === undefined) {
    return flags;
  }
  const slots = engine.scalesContextByParallel ? (configuredSlots(spec.runner, args) ?? 1) : 1;
  const context = Math.floor(total / slots);
  const contextFrom =
    slots === 1
      ? `${engine.context.flag} ${total}`
      : `${engine.context.flag} ${total} / ${slots} slots`;
  return { context, contextFrom, ...flags };
}
