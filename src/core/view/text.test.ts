/**
 * Terminal-safe text (spec §1.1): whatever an engine prints, a log line reaches the screen as plain
 * text that fits its row: no escapes, no control characters, the last state of a redrawn line,
 * and never wider than the screen, wide characters included.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { clip, displayWidth, fit, sanitizeLine } from './text.ts';

const ESC = '\u001b';
// eslint-disable-next-line no-control-regex -- control characters are what must not survive
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

describe('sanitizeLine', () => {
  it.each([
    ['CSI colour', `${ESC}[31mred${ESC}[0m plain`, 'red plain'],
    ['CSI colour with parameters', `${ESC}[1;38;5;196mbold${ESC}[39;49m done`, 'bold done'],
    ['CSI reset without parameters', `a${ESC}[mb`, 'ab'],
    ['cursor up', `${ESC}[3Aup`, 'up'],
    ['erase line and column move', `${ESC}[2K${ESC}[1Gline`, 'line'],
    ['cursor position', `${ESC}[12;40Hhere`, 'here'],
    ['private mode (hide cursor)', `${ESC}[?25lhidden${ESC}[?25h`, 'hidden'],
    ['OSC title ended by BEL', `${ESC}]0;my title\u0007text`, 'text'],
    ['OSC title ended by ST', `${ESC}]2;title${ESC}\\text`, 'text'],
    ['OSC hyperlink', `${ESC}]8;;http://x${ESC}\\link${ESC}]8;;${ESC}\\`, 'link'],
    ['two-byte escape (index)', `${ESC}Dnext`, 'next'],
  ])('drops escapes: %s', (_name, raw, expected) => {
    expect(sanitizeLine(raw)).toBe(expected);
  });

  it.each([
    ['a progress bar redrawn with \\r', 'loading 10%\rloading 50%\rloading 100%', 'loading 100%'],
    ['a trailing \\r', 'done\r', 'done'],
    ['a leading \\r', '\rfresh', 'fresh'],
    ['a shorter redraw', 'xxxxxxxx\rok', 'ok'],
    ['a redraw with colours', `${ESC}[33m 10%${ESC}[0m\r${ESC}[32m100%${ESC}[0m`, '100%'],
    ['only \\r', '\r\r', ''],
  ])('keeps the last state of %s', (_name, raw, expected) => {
    expect(sanitizeLine(raw)).toBe(expected);
  });

  it('expands tabs to spaces', () => {
    expect(sanitizeLine('a\tb\t\tc')).toBe('a    b        c');
  });

  it.each([
    ['NUL', 'a\u0000b', 'ab'],
    ['BEL', 'ding\u0007!', 'ding!'],
    ['backspace', 'ab\u0008c', 'abc'],
    ['vertical tab and form feed', 'a\u000bb\u000cc', 'abc'],
    ['a lone ESC', `end${ESC}`, 'end'],
    ['DEL', 'x\u007fy', 'xy'],
    ['C1 controls', 'p\u0085q\u009br', 'pqr'],
  ])('removes other control characters: %s', (_name, raw, expected) => {
    expect(sanitizeLine(raw)).toBe(expected);
  });

  it('leaves plain text, CJK and emoji alone', () => {
    expect(sanitizeLine('model loaded: 日本語 😀 100%')).toBe('model loaded: 日本語 😀 100%');
  });

  // A newline inside one line (svc's own multi-line messages) must not move the cursor.
  it('removes a newline inside a line', () => {
    expect(sanitizeLine('first\nsecond')).not.toMatch(CONTROL);
  });

  // Charset designations (ESC ( B, from tput sgr0) and cursor save/restore (ESC 7 / ESC 8).
  it.each([
    ['charset designation ESC ( B', `${ESC}(B${ESC}[mtext`, 'text'],
    ['cursor save and restore ESC 7 / ESC 8', `${ESC}7status${ESC}8`, 'status'],
  ])('drops escapes: %s', (_name, raw, expected) => {
    expect(sanitizeLine(raw)).toBe(expected);
  });
});

describe('displayWidth', () => {
  it.each([
    ['', 0],
    ['abc', 3],
    ['日本', 4],
    ['한국', 4],
    ['ｆｕｌｌ', 8],
    ['😀', 2],
    ['a😀b', 4],
    ['e\u0301', 1],
    ['a\u200bb', 2],
  ])('%j takes %i columns', (text, width) => {
    expect(displayWidth(text)).toBe(width);
  });

  // Emoji below U+1F300 that terminals draw two columns wide (emoji presentation).
  it.each(['✅', '❌', '⚡', '⭐', '⌛'])('%s takes 2 columns', (emoji) => {
    expect(displayWidth(emoji)).toBe(2);
  });
});

describe('clip', () => {
  it.each([
    ['hello', 3, 'hel'],
    ['hello', 5, 'hello'],
    ['hello', 9, 'hello'],
    ['hello', 0, ''],
    ['hello', -1, ''],
    ['', 4, ''],
    ['日本語', 6, '日本語'],
    ['日本語', 5, '日本'],
    ['日本語', 1, ''],
    ['a日b', 2, 'a'],
    ['a😀b', 2, 'a'],
    ['a😀b', 3, 'a😀'],
    ['😀😀', 3, '😀'],
  ])('clip(%j, %i) is %j: never wider, never splitting a wide character', (text, columns, out) => {
    expect(clip(text, columns)).toBe(out);
  });
});

describe('fit', () => {
  it.each([
    ['ab', 5, 'ab   '],
    ['abcdef', 4, 'abcd'],
    ['abcd', 4, 'abcd'],
    ['', 3, '   '],
    ['x', 0, ''],
    ['日本語', 5, '日本 '],
    ['日本語', 4, '日本'],
    ['😀x', 1, ' '],
    ['😀x', 2, '😀'],
  ])('fit(%j, %i) is %j', (text, columns, out) => {
    expect(fit(text, columns)).toBe(out);
    expect(displayWidth(fit(text, columns))).toBe(columns);
  });
});

/** Text an engine might print: escapes, redraws, tabs, controls, wide and combining characters. */
const engineText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.string({ unit: 'grapheme' }),
      fc.constantFrom(
        `${ESC}[31m`,
        `${ESC}[0m`,
        `${ESC}[2K`,
        `${ESC}[1;1H`,
        `${ESC}[?25l`,
        `${ESC}]0;title\u0007`,
        `${ESC}]8;;http://x${ESC}\\`,
        ESC,
        '\r',
        '\t',
        '\u0000',
        '\u0007',
        '\u007f',
        '\u009b',
        '日本語',
        '한',
        '😀',
        '👍🏽',
        'e\u0301',
        '\u200b',
      ),
    ),
    { maxLength: 12 },
  )
  // `\n` is left out here: it is the known bug above (sanitizeLine keeps it).
  .map((parts) => parts.join('').replaceAll('\n', ''));

describe('text: properties', () => {
  it('fit(sanitizeLine(s), c) is exactly c columns, with no escape or control character', () => {
    fc.assert(
      fc.property(engineText, fc.integer({ min: 0, max: 200 }), (text, columns) => {
        const out = fit(sanitizeLine(text), columns);
        if (columns > 0) {
          expect(displayWidth(out)).toBe(columns);
        } else {
          expect(out).toBe('');
        }
        expect(out).not.toContain(ESC);
        expect(out).not.toMatch(CONTROL);
      }),
      { numRuns: 500 },
    );
  });

  it('clip is a prefix of its input and never wider than the columns', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme' }), fc.integer({ min: -5, max: 200 }), (text, c) => {
        const out = clip(text, c);
        expect(text.startsWith(out)).toBe(true);
        expect(displayWidth(out)).toBeLessThanOrEqual(Math.max(0, c));
      }),
      { numRuns: 500 },
    );
  });
});
