/**
 * llama-swap's own example configuration (test/fixtures/llama-swap/, its current format) imports,
 * and the fleet file written from it is one the gateway accepts: its aliases, unlisted model,
 * filters as params and setParamsByID as variants (docs/design.md D31) read back through the
 * fleet file's own parser. So do a configuration with every key llama-swap documents, current and
 * earlier, and one in its earlier format: each key is carried or listed with a reason, none is
 * taken for a misspelling.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { fileText, planWith } from '../../test/support/project-files/import-plan.ts';
import { type Fleet, parseFleet } from '../core/fleet/file/fleet-file.ts';

const fixture = (name: string): string =>
  readFileSync(
    join(import.meta.dirname, '..', '..', 'test', 'fixtures', 'llama-swap', name),
    'utf8',
  );
const EXAMPLE = fixture('config.example.yaml');
const ENV = { HOME: '/home/u', API_KEY_1: 'k1', API_KEY_2: 'k2', OPENROUTER_API_KEY: 'k3' };

function fleetOf(result: ReturnType<typeof planWith>): Fleet {
  const parsed = parseFleet(fileText(result, 'fleet.yaml'), 'fleet.yaml', {
    env: { GATEWAY_TOKEN: 'token' },
    dotenv: {},
  });
  if (!parsed.ok) {
    throw new Error(parsed.problems.join('\n'));
  }
  return parsed.value;
}

/** Every line of what could not be carried, the configuration's and each model's. */
const allLosses = (result: ReturnType<typeof planWith>): string[] =>
  result.losses.flatMap((entry) => entry.items.map((item) => `${item.what}: ${item.why}`));

describe("llama-swap's example configuration", () => {
  it('imports, and its fleet file parses with every name and preset carried', () => {
    const result = planWith(EXAMPLE, ENV);
    const fleet = fleetOf(result);
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

describe('every key llama-swap documents', () => {
  const env = {
    SVC_TEST_MODEL: '/m/tiny.gguf',
    SVC_TEST_SERVER: '/s.mjs',
    API_KEY_1: 'k',
    PEER_KEY: 'p',
  };

  it('imports, carrying concurrencyLimit, strip_params and groups, listing the rest with reasons', () => {
    const result = planWith(fixture('every-key.yaml'), env);
    const fleet = fleetOf(result);
    expect(fleet.nodes.find((node) => node.name === 'chat')).toMatchObject({
      slots: 2,
      keepWarm: true,
      aliases: ['chat', 'gpt-4o-mini'],
      params: { set: { max_tokens: 2 }, strip: ['top_k', 'temperature', 'top_p'] },
    });
    expect(fleet.nodes.find((node) => node.name === 'whisper')).toMatchObject({ unlisted: true });
    const losses = allLosses(result);
    expect(losses.filter((line) => line.includes('not a llama-swap key'))).toEqual([]);
    for (const key of ['logRequests', 'unloadTimeout', 'ui', 'store', 'performance', 'profiles']) {
      expect(losses).toContainEqual(expect.stringMatching(new RegExp(`^${key}: `)));
    }
  });

  it('imports its earlier format: profiles as lists, fixed ports, strip_params', () => {
    const result = planWith(fixture('earlier-format.yaml'), {});
    const fleet = fleetOf(result);
    expect(fleet.nodes.find((node) => node.name === 'qwen')).toMatchObject({
      unlisted: true,
      params: { strip: ['temperature', 'top_p', 'top_k'] },
    });
    expect(fileText(result, 'llama/Svcfile')).toContain('BASEURL  127.0.0.1:9001\n');
    expect(allLosses(result).filter((line) => line.includes('not a llama-swap key'))).toEqual([]);
  });
});
