/**
 * Which engine a llama-swap `cmd` runs, and its arguments as flags: `llama-server …`,
 * `vllm serve <model> …` or `python -m vllm.entrypoints.openai.api_server …`, after any leading
 * `NAME=value` assignments. Anything else (a container, another server) is not an engine svc
 * runs, and says why. Pure.
 */
import { canonicalKey } from '../core/engines/dialect.ts';
import { ENGINES } from '../core/engines/engine-table.ts';
import type { NotCarried } from './not-carried.ts';

export type ImportedRunner = 'llamacpp' | 'vllm';

/** One flag as written, with its value when it takes one. */
export interface Flag {
  /** As written, without any `=value`: `-ngl`, `--ctx-size`. */
  readonly written: string;
  /** The engine's own name for it: llama.cpp's long name (`n-gpu-layers`), else the name. */
  readonly key: string;
  /** Absent for a switch. */
  readonly value?: string;
}

export interface EngineArgs {
  readonly runner: ImportedRunner;
  /** The program as written, when it is not the one svc runs from PATH. */
  readonly binary?: string;
  /** vLLM's positional model. */
  readonly positional: readonly string[];
  readonly flags: readonly Flag[];
  readonly env: readonly { readonly key: string; readonly value: string }[];
}

/** vLLM switches that take no value; every other flag followed by a word takes that word. */
const VLLM_SWITCHES = new Set([
  'trust-remote-code',
  'enforce-eager',
  'enable-prefix-caching',
  'no-enable-prefix-caching',
  'enable-chunked-prefill',
  'enable-auto-tool-choice',
  'disable-log-requests',
  'disable-log-stats',
  'enable-lora',
  'enable-sleep-mode',
  'async-scheduling',
  'disable-custom-all-reduce',
]);

/** vLLM's short spellings of its parallelism flags. */
const VLLM_ALIASES: Readonly<Record<string, string>> = {
  tp: 'tensor-parallel-size',
  pp: 'pipeline-parallel-size',
  dp: 'data-parallel-size',
};

const CONTAINERS = new Set(['docker', 'podman', 'nerdctl']);

function baseName(program: string): string {
  return (program.split(/[\\/]/).pop() ?? program).replace(/\.exe$/i, '');
}

function keyOf(runner: ImportedRunner, name: string): string {
  return runner === 'llamacpp'
    ? canonicalKey(ENGINES.llamacpp.dialect, name)
    : (VLLM_ALIASES[name] ?? name);
}

function isSwitch(runner: ImportedRunner, key: string): boolean {
  return runner === 'llamacpp'
    ? ENGINES.llamacpp.dialect.booleans.has(key)
    : VLLM_SWITCHES.has(key);
}

/** A word that is a value rather than the next flag (`-1` is a number). */
function isValue(word: string | undefined): word is string {
  return word !== undefined && (!word.startsWith('-') || /^-\d/.test(word) || word === '-');
}

function readFlags(
  runner: ImportedRunner,
  words: readonly string[],
): { flags: Flag[]; positional: string[] } {
  const flags: Flag[] = [];
  const positional: string[] = [];
  for (let index = 0; index < words.length; index += 1) {
    const word = words[index] ?? '';
    if (!word.startsWith('-') || word === '-' || /^-\d/.test(word)) {
      positional.push(word);
      continue;
    }
    const equals = word.indexOf('=');
    const written = equals < 0 ? word : word.slice(0, equals);
    const key = keyOf(runner, written.replace(/^-+/, ''));
    if (equals >= 0) {
      flags.push({ written, key, value: word.slice(equals + 1) });
      continue;
    }
    const next = words[index + 1];
    if (!isSwitch(runner, key) && isValue(next)) {
      flags.push({ written, key, value: next });
      index += 1;
    } else {
      flags.push({ written, key });
    }
  }
  return { flags, positional };
}

/** The engine a command runs, or why it is not one svc can run. */
export function engineArgs(argv: readonly string[]): EngineArgs | NotCarried {
  let start = 0;
  const env: { key: string; value: string }[] = [];
  for (; start < argv.length; start += 1) {
    const match = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s.exec(argv[start] ?? '');
    if (match === null) {
      break;
    }
    env.push({ key: match[1] ?? '', value: match[2] ?? '' });
  }
  const program = argv[start];
  if (program === undefined) {
    return { what: 'cmd', why: 'names no program' };
  }
  const name = baseName(program);
  const rest = argv.slice(start + 1);
  const binary = (expected: string): { binary?: string } =>
    program === expected ? {} : { binary: program };
  if (/^llama-server/.test(name)) {
    return { runner: 'llamacpp', ...binary('llama-server'), env, ...readFlags('llamacpp', rest) };
  }
  if (name === 'vllm' && rest[0] === 'serve') {
    return { runner: 'vllm', ...binary('vllm'), env, ...readFlags('vllm', rest.slice(1)) };
  }
  if (
    /^python(\d+(\.\d+)?)?$/.test(name) &&
    rest[0] === '-m' &&
    rest[1]?.startsWith('vllm.entrypoints') === true
  ) {
    return {
      runner: 'vllm',
      binary: `${program} -m ${rest[1]}`,
      env,
      ...readFlags('vllm', rest.slice(2)),
    };
  }
  if (CONTAINERS.has(name)) {
    return {
      what: 'cmd',
      why: `runs a container (${name}): svc runs the engine itself, so the image, mounts and port mapping have no Svcfile equivalent; write a Svcfile for the engine inside it`,
    };
  }
  return {
    what: 'cmd',
    why: `runs ${name}: svc runs llama-server, vLLM, oMLX and MTPLX only`,
  };
}
