/**
 * The import tests' readers: a llama-swap config (lines) through the translation, a planned
 * file's text by path, a model's losses as `what: why` lines, and a planned Svcfile (with its
 * preset) parsed by the project's own parser and built into the engine command.
 */
import type { Environment } from '../../../src/import/macros.ts';
import { importLlamaSwap, type ImportPlan } from '../../../src/import/translate.ts';
import { parseHelpers } from '../results/parse-result.ts';
import { command } from './golden-command.ts';

export const { parsed: plan, problems: importProblems } = parseHelpers(
  (text, source) => importLlamaSwap(text, source, {}),
  'the llama-swap config',
  'config.yaml',
);

export function planWith(text: string, env: Environment): ImportPlan {
  const result = importLlamaSwap(text, 'config.yaml', env);
  if (!result.ok) {
    throw new Error(`expected the config to import, got:\n${result.problems.join('\n')}`);
  }
  return result.value;
}

export const yamlLines = (...parts: string[]): string => `${parts.join('\n')}\n`;

export function fileText(result: ImportPlan, path: string): string {
  const found = result.files.find((file) => file.path === path);
  if (found === undefined) {
    throw new Error(
      `no planned file ${path}; planned: ${result.files.map((file) => file.path).join(', ')}`,
    );
  }
  return found.text;
}

/** A model's losses (or, with no model, the configuration's) as `what: why` lines. */
export function lossesOf(result: ImportPlan, model?: string): string[] {
  const entry = result.losses.find((losses) => losses.model === model);
  return (entry?.items ?? []).map((item) => `${item.what}: ${item.why}`);
}

/** The engine command svc would run for a planned model, through parse, preset and resolve. */
export function engineCommandOf(result: ImportPlan, directory: string): string {
  const preset = result.files.find((file) => file.path === `${directory}/preset.ini`);
  return command(fileText(result, `${directory}/Svcfile`), preset?.text);
}
