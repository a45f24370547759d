/**
 * llama-swap's own example configuration (test/fixtures/llama-swap/, its current format) imports,
 * and the fleet file written from it is one the gateway accepts: its aliases, unlisted model,
 * filters as params and setParamsByID as variants (docs/design.md D31) read back through the
 * fleet file's own parser.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { fileText, planWith } from '../../test/support/project-files/import-plan.ts';
import { parseFleet } from '../core/fleet/file/fleet-file.ts';

const EXAMPLE = readFileSync(
  join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'llama-swap', 'config.example.yaml'),
  'utf8',
);
const ENV = { HOME: '/home/u', API_KEY_1: 'k1', API_KEY_2: 'k2', OPENROUTER_API_KEY: 'k3' };

describe("llama-swap's example configuration", () => {
  it('imports, and its fleet file parses with every name and preset carried', () => {
    const result = planWith(EXAMPLE, ENV);
    const parsed = parseFleet(fileText(result, 'fleet.yaml'), 'fleet.yaml', {
      env: { GATEWAY_TOKEN: 'token' },
      dotenv: {},
    });
    if (!parsed.ok) {
      throw new Error(parsed.problems.join('\n'));
    }
    const fleet = parsed.value;
    expect(fleet.nodes.find((node) => node.name === 'gpt-oss-120b')).toMatchObject({
      aliases: ['gpt-oss-120b', 'gpt-4o-mini'],
      params: {
        set: { temperature: 0.7, top_p: 0.9, chat_template_kwargs: { reasoning_effort: 'medium' } },
        strip: ['temperature', 'top_p', 'top_k'],
      },
    });
    expect(fleet.nodes.find((node) => node.name === 'qwen-unlisted')).toMatchObject({
      unlisted: true,
    });
    expect(fleet.variants?.map((variant) => [variant.name, variant.model])).toEqual([
      ['gpt-oss-120b:high', 'gpt-oss-120b'],
      ['gpt-oss-120b:low', 'gpt-oss-120b'],
    ]);
    expect(fileText(result, 'gpt-oss-120b/Svcfile')).toContain('ALIAS    openai/gpt-oss-120B\n');
  });
});
