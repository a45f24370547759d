/**
 * Choosing a preset's section by the Svcfile's ALIAS (spec §1.4, §7), case-insensitively, and
 * the refusals that list the sections there are.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { type Preset, type PresetEntry, type PresetSection, selectSection } from './preset.ts';

const SOURCE = 'presets/qwen.ini';

function entry(key: string, value: string): PresetEntry {
  return { key, value };
}

describe('selectSection', () => {
  const section = (name: string, ...entries: PresetEntry[]): PresetSection => ({ name, entries });
  const preset = (...sections: PresetSection[]): Preset => ({
    defaults: [entry('threads', '8')],
    sections,
  });
  const qwen = section('Qwen3', entry('hf', 'org/qwen'));
  const gemma = section('gemma', entry('hf', 'org/gemma'));
  const llama = section('Llama-3', entry('hf', 'org/llama'));

  it.each(['Qwen3', 'qwen3', 'QWEN3', 'qWeN3'])('ALIAS %s picks [Qwen3]', (alias) => {
    expect(selectSection(preset(gemma, qwen, llama), alias, SOURCE)).toEqual({
      ok: true,
      value: qwen,
    });
  });

  it.each(['gemma', 'Llama-3'])('ALIAS %s picks its own section among several', (alias) => {
    const result = selectSection(preset(gemma, qwen, llama), alias, SOURCE);
    expect(result.ok && result.value.name).toBe(alias);
  });

  it.each([undefined, 'something-else', 'qwen3'])(
    'uses the only section whatever the ALIAS (%s)',
    (alias) => {
      expect(selectSection(preset(gemma), alias, SOURCE)).toEqual({ ok: true, value: gemma });
    },
  );

  it('refuses several sections and no ALIAS, listing them, as ERR_PRESET_SECTION_AMBIGUOUS', () => {
    const result = selectSection(preset(gemma, qwen, llama), undefined, SOURCE);
    expect(result.ok).toBe(false);
    if (result.ok) {
      return;
    }
    expect(result.code).toBe('ERR_PRESET_SECTION_AMBIGUOUS');
    expect(result.problems).toHaveLength(1);
    const [message = ''] = result.problems;
    expect(message).toContain(`${SOURCE}: `);
    expect(message).toContain('3 sections');
    expect(message).toContain('gemma, Qwen3, Llama-3');
    expect(message).toContain('ALIAS');
  });

  it('refuses several sections and an ALIAS that names none, listing the available ones', () => {
    const result = selectSection(preset(gemma, qwen), 'mistral', SOURCE);
    expect(result).toEqual({
      ok: false,
      problems: [
        `${SOURCE}: the preset has no [mistral] section for ALIAS mistral (available: gemma, Qwen3)`,
      ],
    });
    if (!result.ok) {
      expect(result.problems[0]).toContain('mistral');
      expect(result.problems[0]).toContain('available');
      expect(result.code).not.toBe('ERR_PRESET_SECTION_AMBIGUOUS');
    }
  });

  it.each([undefined, 'Qwen3'])('refuses a preset with no model sections (ALIAS %s)', (alias) => {
    const result = selectSection({ defaults: [entry('a', '1')], sections: [] }, alias, SOURCE);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.problems).toHaveLength(1);
      expect(result.problems[0]).toContain(SOURCE);
      expect(result.problems[0]).toContain('no model sections');
    }
  });

  it('picks the named section among any number, however the ALIAS is cased', () => {
    fc.assert(
      fc.property(
        fc
          .uniqueArray(fc.stringMatching(/^[A-Za-z][\w.-]{0,10}$/), {
            minLength: 2,
            maxLength: 8,
            selector: (name) => name.toLowerCase(),
          })
          .chain((names) =>
            fc.tuple(
              fc.constant(names),
              fc.nat(names.length - 1),
              fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
            ),
          ),
        ([names, pick, casing]) => {
          const sections = names.map((name, at) => section(name, entry('n', String(at))));
          const wanted = names[pick] ?? '';
          const alias = Array.from(wanted, (char, at) =>
            casing[at] === true ? char.toUpperCase() : char.toLowerCase(),
          ).join('');
          expect(selectSection(preset(...sections), alias, SOURCE)).toEqual({
            ok: true,
            value: sections[pick],
          });
        },
      ),
      { numRuns: 100 },
    );
  });
});
