/**
 * A llama-swap model's filters (docs/design.md D31): stripParams and setParams as the node's
 * params, setParamsByID as variants (the model's own id on its params), unknown keys named.
 */
import { describe, expect, it } from 'vitest';

import {
  fileText,
  lossesOf,
  plan,
  yamlLines,
} from '../../test/support/project-files/import-plan.ts';

function planOne(name: string, ...entry: string[]): ReturnType<typeof plan> {
  return plan(yamlLines('models:', `  ${name}:`, ...entry.map((line) => `    ${line}`)));
}

describe('filters', () => {
  it("carries filters as the node's params and setParamsByID as variants (D31)", () => {
    const result = planOne(
      'qwen',
      'cmd: llama-server -m /q.gguf',
      'filters:',
      '  stripParams: "temperature, top_p, model"',
      '  setParams: {top_k: 20, model: x}',
      '  setParamsByID:',
      '    qwen-fast: {max_tokens: 1}',
      '    qwen: {min_p: 0}',
      '  sortParams: true',
    );
    const fleet = fileText(result, 'fleet.yaml');
    expect(fleet).toContain(
      '    params:\n      set:\n        top_k: 20\n        min_p: 0\n      strip:\n        - temperature\n        - top_p\n',
    );
    expect(fleet).toContain(
      'variants:\n  qwen-fast:\n    model: qwen\n    set:\n      max_tokens: 1\n',
    );
    expect(lossesOf(result, 'qwen')).toEqual([
      'filters.sortParams: not a llama-swap key: did you mean setParams?',
      "filters.setParams.model: svc's gateway writes the node's served name into model (see useModelName)",
    ]);
  });
});
