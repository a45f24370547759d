/**
 * Aliases, `unlisted`, `params` and `variants` in the fleet file (docs/design.md D31): read as
 * written, and every bad value or unknown key refused naming its node or variant and, for a key,
 * the closest valid one.
 */
import { describe, expect, it } from 'vitest';

import { lines, parsed, problems } from '../../../../test/support/project-files/fleet-text.ts';

const fleet = (...extra: string[]): string =>
  lines(
    'nodes:',
    '  - name: chat',
    '    kind: local',
    '    file: Svcfile',
    '    aliases: [gpt-4o, qwen]',
    '    unlisted: true',
    '    params:',
    '      set: {temperature: 0.6, chat_template_kwargs: {enable_thinking: true}}',
    '      strip: [top_k]',
    ...extra,
  );

describe('names and presets in the fleet file', () => {
  it('reads aliases, unlisted, params and variants as written', () => {
    const file = parsed(
      fleet(
        'variants:',
        '  fast:',
        '    model: qwen',
        '    set: {max_tokens: 1}',
        '    strip: [temperature]',
      ),
    );
    expect(file.nodes[0]).toMatchObject({
      aliases: ['gpt-4o', 'qwen'],
      unlisted: true,
      params: {
        set: { temperature: 0.6, chat_template_kwargs: { enable_thinking: true } },
        strip: ['top_k'],
      },
    });
    expect(file.variants).toEqual([
      { name: 'fast', model: 'qwen', set: { max_tokens: 1 }, strip: ['temperature'] },
    ]);
  });

  it('leaves a node without them as before', () => {
    const file = parsed(lines('nodes:', '  - name: a', '    host: h'));
    expect(file.nodes[0]).not.toHaveProperty('aliases');
    expect(file.nodes[0]).not.toHaveProperty('params');
    expect(file).not.toHaveProperty('variants');
  });

  it('names the closest valid key for a misspelt one, in a node and in a variant', () => {
    expect(problems(fleet('    alias: [x]'))).toEqual([
      expect.stringMatching(
        /unknown key "alias" in node "chat" \(line 10\): did you mean "aliases"\?/,
      ),
    ]);
    expect(problems(fleet('variants:', '  fast:', '    model: qwen', '    sett: {a: 1}'))).toEqual([
      expect.stringMatching(
        /unknown key "sett" in variants "fast" \(line 13\): did you mean "set"\?/,
      ),
    ]);
    const strp = lines('nodes:', '  - name: a', '    host: h', '    params: {strp: [a]}');
    expect(problems(strp)).toContainEqual(
      expect.stringMatching(/unknown key "strp" in node "a" params.*did you mean "strip"\?/),
    );
  });

  it('refuses bad values, naming the node or variant', () => {
    const bad = (...extra: string[]): string =>
      lines('nodes:', '  - name: a', '    host: h', ...extra);
    expect(problems(bad('    aliases: qwen'))).toEqual([
      expect.stringContaining('node "a": aliases must be a list of names'),
    ]);
    expect(problems(bad('    aliases: [q, q]'))).toEqual([
      expect.stringContaining('node "a": aliases lists "q" twice'),
    ]);
    expect(problems(bad('    unlisted: yes'))).toEqual([
      expect.stringContaining('node "a": unlisted must be true or false, not "yes"'),
    ]);
    expect(problems(bad('    params: {set: {model: x}}'))).toEqual([
      expect.stringContaining('node "a": params.set may not set model'),
    ]);
    expect(problems(bad('    params: {set: [1]}'))).toEqual([
      expect.stringContaining('node "a": params.set must map body keys to values'),
    ]);
    expect(problems(bad('variants:', '  v: {set: {a: 1}}'))).toEqual([
      expect.stringContaining('variants "v" names no model'),
    ]);
    expect(problems(bad('    aliases: [v]', 'variants:', '  v: {model: a}'))).toEqual([
      expect.stringContaining('variants "v": node "a" already has the alias "v"'),
    ]);
    expect(problems(bad('variants:', '  v: {model: w}', '  w: {model: a}'))).toEqual([
      expect.stringContaining('variants "v": model "w" is a variant itself'),
    ]);
  });
});
