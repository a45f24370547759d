/**
 * The model picker `svc code` shows on a terminal when neither a project file nor `--model` names
 * a model: a numbered list of what the gateway lists, running models first and sleeping ones
 * marked (they wake on the first request, which takes a while). Layout and answer parsing are
 * pure; `pickModel` is the terminal edge, on injected streams.
 */
import { createInterface } from 'node:readline';

import { SvcError } from '../core/errors.ts';
import type { ListedModel } from './agent-target.ts';

const ORDER: Readonly<Record<string, number>> = { running: 0, loading: 1 };

/** Running, then loading, then the rest (asleep, or unknown); the gateway's order within each. */
export function pickerOrder(models: readonly ListedModel[]): ListedModel[] {
  const rank = (model: ListedModel) => ORDER[model.state ?? ''] ?? 2;
  return models
    .map((model, index) => ({ model, index }))
    .sort((a, b) => rank(a.model) - rank(b.model) || a.index - b.index)
    .map((entry) => entry.model);
}

const NOTES: Readonly<Record<string, string>> = {
  loading: 'loading',
  asleep: 'asleep: the first request wakes a node',
};

export function renderPicker(models: readonly ListedModel[], agent: string): string {
  const width = String(models.length).length;
  const idWidth = Math.max(...models.map((model) => model.id.length));
  const lines = models.map((model, index) => {
    const note = NOTES[model.state ?? ''];
    const number = String(index + 1).padStart(width);
    return `  ${number}) ${note === undefined ? model.id : `${model.id.padEnd(idWidth)}  (${note})`}`;
  });
  return `Models for ${agent} on the fleet:\n${lines.join('\n')}\n`;
}

/** The answer as an index into `models`: a number from 1, an exact id, or empty for the first. */
export function parseChoice(answer: string, models: readonly ListedModel[]): number | undefined {
  const text = answer.trim();
  if (text === '') {
    return 0;
  }
  if (/^\d+$/.test(text)) {
    const index = Number(text) - 1;
    return index >= 0 && index < models.length ? index : undefined;
  }
  const index = models.findIndex((model) => model.id === text);
  return index < 0 ? undefined : index;
}

/** Asks on `output`, reads `input` line by line until a valid answer; its end chooses nothing. */
export async function pickModel(
  listed: readonly ListedModel[],
  agent: string,
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Promise<string> {
  const models = pickerOrder(listed);
  output.write(renderPicker(models, agent));
  const prompt = createInterface({ input, terminal: false });
  // The iterator buffers lines, so an answer typed ahead of the prompt is not lost.
  const lines = prompt[Symbol.asyncIterator]();
  try {
    for (;;) {
      output.write(`Model [1-${models.length}, Enter for 1]: `);
      const next = await lines.next();
      if (next.done === true) {
        throw new SvcError('ERR_USAGE', 'no model chosen: pass --model <id>');
      }
      const answer = next.value;
      const index = parseChoice(answer, models);
      const model = index === undefined ? undefined : models[index];
      if (model !== undefined) {
        return model.id;
      }
      output.write(`"${answer.trim()}" is not one of the ${models.length} models listed\n`);
    }
  } finally {
    prompt.close();
  }
}
