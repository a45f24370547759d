/**
 * An engine's flags → Svcfile fields and preset entries. The flags a Svcfile has a keyword for
 * become it (model, context, slots, host and port; spec §1.2); every other flag goes to the
 * preset under the engine's own name, so the engine command svc builds carries it (spec §1.4).
 * What neither can hold, or must not (a secret), is listed with the reason. Pure.
 */
import { ENGINES, isModelPath } from '../core/engines/engine-table.ts';
import { isSecretFlag } from '../core/runner/redact-args.ts';
import type { EngineArgs, Flag, ImportedRunner } from './engine-command.ts';
import { PORT_MACRO } from './macros.ts';
import type { NotCarried } from './not-carried.ts';

export interface PresetLine {
  readonly key: string;
  readonly value: string;
}

/** A Svcfile's fields before they are written (ALIAS is the model id, set by the caller). */
export interface EngineFields {
  readonly provider: ImportedRunner | 'command';
  /** ENGINE: the llama-server build the cmd runs by path (docs/design.md D31). */
  readonly engine?: string;
  readonly model?: string;
  readonly context?: number;
  readonly parallel?: number;
  readonly host?: string;
  readonly port?: number;
  /** The cmd's own served name (`--alias`, `--served-model-name`), when it gave one. */
  readonly servedName?: string;
  readonly preset: readonly PresetLine[];
}

/** Keys with a Svcfile keyword, per engine. */
const FIELD_KEYS: Readonly<Record<ImportedRunner, Readonly<Record<string, string>>>> = {
  llamacpp: {
    'ctx-size': 'context',
    parallel: 'parallel',
    alias: 'alias',
  },
  vllm: {
    'max-model-len': 'context',
    'max-num-seqs': 'parallel',
    'served-model-name': 'alias',
    model: 'model',
  },
};

const POSITIVE = /^[1-9]\d*$/;

/** llama-server flags that add one more each time they are given, rather than replace. */
const LLAMACPP_REPEATABLE = new Set([
  'lora',
  'lora-scaled',
  'control-vector',
  'control-vector-scaled',
  'override-tensor',
]);

/** Why a flag cannot be written as a preset line, or undefined when it can. */
function presetProblem(runner: ImportedRunner, flag: Flag): string | undefined {
  const name = flag.written.replace(/^-+/, '');
  if (/[A-Z]/.test(name)) {
    return 'preset keys are lower-case, so this flag cannot be spelt in a preset';
  }
  if (!flag.written.startsWith('--') && name.length > 1 && flag.key === name) {
    return `svc knows no long name for ${runner === 'llamacpp' ? 'llama-server' : 'vLLM'}'s short flag ${flag.written} (a preset key longer than one letter becomes --key): write its long form in the preset`;
  }
  const value = flag.value;
  if (value !== undefined && (value === '' || value.trim() !== value || /[ \t][#;]/.test(value))) {
    return 'its value cannot be written in a preset (empty, spaces at either end, or " #"/" ;", which start a comment there)';
  }
  if (value !== undefined && /[\r\n]/.test(value)) {
    return 'its value spans lines, which a preset cannot hold';
  }
  return undefined;
}

function switchValue(runner: ImportedRunner, flag: Flag): string {
  if (flag.value !== undefined) {
    return flag.value;
  }
  // A llama.cpp switch svc knows is written `= true`; any other bare flag as an empty value,
  // which the preset renders as the bare flag (core/engines/dialect.ts).
  return runner === 'llamacpp' && ENGINES.llamacpp.dialect.booleans.has(flag.key) ? 'true' : '';
}

/** The llama.cpp model: one -m path or -hf repo becomes MODEL; both, or an odd one, the preset. */
function llamaModel(flags: readonly Flag[]): { model?: string; toPreset: boolean } {
  const sources = flags.filter((flag) => flag.key === 'model' || flag.key === 'hf-repo');
  const [only, ...others] = sources;
  if (only?.value === undefined || others.length > 0) {
    return { toPreset: sources.length > 0 };
  }
  // docs/design.md D2: MODEL becomes -m for a path and -hf for a repo; a value the other way round
  // keeps its own flag through the preset.
  const fits = only.key === 'model' ? isModelPath(only.value) : !isModelPath(only.value);
  return fits ? { model: only.value, toPreset: false } : { toPreset: true };
}

export function engineFields(args: EngineArgs): { fields: EngineFields; losses: NotCarried[] } {
  const { runner } = args;
  const losses: NotCarried[] = [];
  const preset: PresetLine[] = [];
  const fieldKeys = FIELD_KEYS[runner];
  let model: string | undefined;
  let context: number | undefined;
  let parallel: number | undefined;
  let host: string | undefined;
  let port: number | undefined;
  let servedName: string | undefined;

  // A llama-server run by path keeps running that build (ENGINE); vLLM has no such line.
  const engine =
    runner === 'llamacpp' && args.binary?.startsWith('/') === true ? args.binary : undefined;
  if (args.binary !== undefined && engine === undefined) {
    losses.push({
      what: args.binary,
      why:
        runner === 'llamacpp'
          ? "ENGINE takes an absolute path: write this build's full path as ENGINE in the Svcfile"
          : 'svc runs vllm from PATH: put this build first on PATH',
    });
  }
  const llama = runner === 'llamacpp' ? llamaModel(args.flags) : { toPreset: true };
  model = runner === 'llamacpp' ? llama.model : args.positional[0];
  const strays = runner === 'vllm' ? args.positional.slice(1) : args.positional;
  for (const word of strays) {
    losses.push({ what: word, why: 'an argument that belongs to no flag' });
  }

  // Both engines take a flag's last value (llama-server's parser and vLLM's argparse), so an
  // earlier occurrence is the one left out; a flag that adds one more each time (--lora) keeps
  // its first, as a preset holds one value per flag.
  const last = new Map(args.flags.map((flag, index) => [flag.key, index]));
  const first = new Map(
    [...args.flags.entries()].reverse().map(([index, flag]) => [flag.key, index]),
  );
  for (const [index, flag] of args.flags.entries()) {
    const repeatable = runner === 'llamacpp' && LLAMACPP_REPEATABLE.has(flag.key);
    if ((repeatable ? first : last).get(flag.key) !== index) {
      losses.push({
        what: `${flag.written}${flag.value === undefined ? '' : ` ${flag.value}`}`,
        why: repeatable
          ? `${flag.key} is given earlier in the cmd; a preset holds one value per flag`
          : `${flag.key} is given again later in the cmd, and ${runner === 'llamacpp' ? 'llama-server' : 'vLLM'} uses the last value`,
      });
      continue;
    }
    if (
      flag.key === 'api-key-file' ||
      (isSecretFlag(flag.written) && !flag.key.endsWith('-file'))
    ) {
      // docs/design.md D5: a secret never goes into a file svc writes, nor into this report.
      losses.push({
        what: `${flag.written} (value not shown)`,
        why:
          flag.key === 'api-key' || flag.key === 'api-key-file'
            ? "svc gates the engine itself: name the key's variable with engineTokenEnv on the fleet node"
            : 'a secret is not written into a preset: set it in the .env beside the Svcfile',
      });
      continue;
    }
    const value = flag.value;
    const field = fieldKeys[flag.key];
    if (flag.key === 'host' && value !== undefined) {
      host = value;
      continue;
    }
    if (flag.key === 'port' && value !== undefined) {
      if (value === PORT_MACRO) {
        continue;
      }
      if (/^\d+$/.test(value) && Number(value) > 0 && Number(value) < 65_536) {
        port = Number(value);
        continue;
      }
    }
    if (
      runner === 'llamacpp' &&
      (flag.key === 'model' || flag.key === 'hf-repo') &&
      !llama.toPreset
    ) {
      continue;
    }
    if (field === 'model' && value !== undefined && model === undefined) {
      model = value;
      continue;
    }
    if (field === 'context' && value !== undefined && POSITIVE.test(value)) {
      context = Number(value);
      continue;
    }
    if (field === 'parallel' && value !== undefined && POSITIVE.test(value)) {
      parallel = Number(value);
      continue;
    }
    if (field === 'alias' && value !== undefined) {
      servedName = value;
      continue;
    }
    const problem = presetProblem(runner, flag);
    if (problem !== undefined) {
      losses.push({
        what: `${flag.written}${value === undefined ? '' : ` ${value}`}`,
        why: problem,
      });
      continue;
    }
    preset.push({ key: flag.key, value: switchValue(runner, flag) });
  }

  // spec §1.3: llama.cpp's --ctx-size is shared by its slots, and CONTEXT is one request's
  // window (svc multiplies it by PARALLEL); a size the slots do not divide keeps its own flag.
  if (runner === 'llamacpp' && context !== undefined && parallel !== undefined) {
    if (context % parallel === 0) {
      context /= parallel;
    } else {
      preset.unshift({ key: 'ctx-size', value: String(context) });
      context = undefined;
    }
  }
  return {
    fields: {
      provider: runner,
      ...(engine === undefined ? {} : { engine }),
      ...(model === undefined ? {} : { model }),
      ...(context === undefined ? {} : { context }),
      ...(parallel === undefined ? {} : { parallel }),
      ...(host === undefined ? {} : { host }),
      ...(port === undefined ? {} : { port }),
      ...(servedName === undefined ? {} : { servedName }),
      preset,
    },
    losses,
  };
}
