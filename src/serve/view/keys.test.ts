/**
 * The view's keys (spec §1.1): one table for the handler and the footer, so the footer lists only
 * keys the view handles; raw terminal input decoded to those keys.
 */
import { describe, expect, it } from 'vitest';

import { actionFor, decodeKeys, footer, KEY_TABLE, type KeyName, type ViewAction } from './keys.ts';
import { appendLines, applyAction, EMPTY_PANE, type LogPane, visibleLines } from './log-pane.ts';

const ALL_KEYS: readonly KeyName[] = ['up', 'down', 'pgup', 'pgdown', 'f', 'q', 'ctrl-c'];

const numbered = (count: number): string[] =>
  Array.from({ length: count }, (_, index) => `line ${index + 1}`);

/** A pane of `count` lines on the tail, as the view builds it. */
const paneOf = (count: number, rows: number): LogPane =>
  appendLines(EMPTY_PANE, numbered(count), rows);

const press = (pane: LogPane, key: KeyName, rows: number): LogPane => {
  const action = actionFor(key);
  expect(action).toBeDefined();
  return applyAction(pane, action as ViewAction, rows);
};

describe('key table (spec §1.1)', () => {
  it.each<[KeyName, ViewAction]>([
    ['up', { type: 'scroll', lines: 1 }],
    ['down', { type: 'scroll', lines: -1 }],
    ['pgup', { type: 'page', pages: 1 }],
    ['pgdown', { type: 'page', pages: -1 }],
    ['f', { type: 'toggle-follow' }],
    ['q', { type: 'quit' }],
    ['ctrl-c', { type: 'quit' }],
  ])('%s → %j', (key, action) => {
    expect(actionFor(key)).toEqual(action);
  });

  it('binds every key name exactly once', () => {
    const bound = KEY_TABLE.flatMap((binding) => binding.keys);
    expect([...bound].sort()).toEqual([...ALL_KEYS].sort());
  });

  it('up shows one line further back, down one line nearer the tail', () => {
    const rows = 3;
    const tail = paneOf(10, rows);
    expect(visibleLines(tail, rows)).toEqual(['line 8', 'line 9', 'line 10']);
    const up = press(tail, 'up', rows);
    expect(visibleLines(up, rows)).toEqual(['line 7', 'line 8', 'line 9']);
    const upTwice = press(up, 'up', rows);
    expect(visibleLines(upTwice, rows)).toEqual(['line 6', 'line 7', 'line 8']);
    expect(visibleLines(press(upTwice, 'down', rows), rows)).toEqual(visibleLines(up, rows));
  });

  it('down at the tail stays on the tail (clamped)', () => {
    const rows = 3;
    const tail = paneOf(10, rows);
    const down = press(press(tail, 'down', rows), 'down', rows);
    expect(down.behind).toBe(0);
    expect(visibleLines(down, rows)).toEqual(['line 8', 'line 9', 'line 10']);
    // Clamped, not counted: one up from there moves at once.
    expect(visibleLines(press(down, 'up', rows), rows)).toEqual(['line 7', 'line 8', 'line 9']);
  });

  it('up at the oldest line stays there (clamped)', () => {
    const rows = 3;
    let pane = paneOf(10, rows);
    for (let press_ = 0; press_ < 20; press_ += 1) {
      pane = press(pane, 'up', rows);
    }
    expect(pane.behind).toBe(7);
    expect(visibleLines(pane, rows)).toEqual(['line 1', 'line 2', 'line 3']);
    // Clamped, not counted: one down from there moves at once.
    expect(visibleLines(press(pane, 'down', rows), rows)).toEqual(['line 2', 'line 3', 'line 4']);
  });

  it('scrolling a log shorter than the pane does nothing', () => {
    const rows = 5;
    const pane = paneOf(3, rows);
    for (const key of ['up', 'pgup', 'down', 'pgdown'] as const) {
      expect(press(pane, key, rows).behind).toBe(0);
      expect(visibleLines(press(pane, key, rows), rows)).toEqual(['line 1', 'line 2', 'line 3']);
    }
  });

  it('pgup and pgdown move by a page: the pane row count', () => {
    const rows = 4;
    const tail = paneOf(20, rows);
    expect(visibleLines(tail, rows)).toEqual(['line 17', 'line 18', 'line 19', 'line 20']);
    const back = press(tail, 'pgup', rows);
    expect(back.behind).toBe(rows);
    expect(visibleLines(back, rows)).toEqual(['line 13', 'line 14', 'line 15', 'line 16']);
    const backTwice = press(back, 'pgup', rows);
    expect(visibleLines(backTwice, rows)).toEqual(['line 9', 'line 10', 'line 11', 'line 12']);
    expect(visibleLines(press(backTwice, 'pgdown', rows), rows)).toEqual(visibleLines(back, rows));
  });

  it('a page uses the row count it is given', () => {
    expect(press(paneOf(100, 7), 'pgup', 7).behind).toBe(7);
    expect(press(paneOf(100, 13), 'pgup', 13).behind).toBe(13);
  });

  it('pgup and pgdown clamp at either end', () => {
    const rows = 4;
    const tail = paneOf(10, rows);
    expect(press(tail, 'pgdown', rows).behind).toBe(0);
    const top = press(press(press(tail, 'pgup', rows), 'pgup', rows), 'pgup', rows);
    expect(top.behind).toBe(6);
    expect(visibleLines(top, rows)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
  });

  it('f pauses and resumes the follow', () => {
    const paused = press(paneOf(3, 2), 'f', 2);
    expect(paused.following).toBe(false);
    expect(press(paused, 'f', 2).following).toBe(true);
  });

  it.each<KeyName>(['q', 'ctrl-c'])('%s quits and leaves the pane as it is', (key) => {
    expect(actionFor(key)).toEqual({ type: 'quit' });
    const pane = paneOf(5, 2);
    expect(press(pane, key, 2)).toEqual(pane);
  });
});

describe('footer (drawn from the key table)', () => {
  it.each<[KeyName, string]>([
    ['up', '↑↓ scroll'],
    ['down', '↑↓ scroll'],
    ['pgup', 'pgup/pgdn page'],
    ['pgdown', 'pgup/pgdn page'],
    ['f', 'f '],
    ['q', 'q quit'],
    ['ctrl-c', 'q quit'],
  ])('lists %s as %j', (key, label) => {
    const binding = KEY_TABLE.find((entry) => entry.keys.includes(key));
    expect(binding).toBeDefined();
    for (const following of [true, false]) {
      expect(binding?.label(following)).toContain(label);
      expect(footer(following)).toContain(binding?.label(following));
    }
  });

  it.each([true, false])('holds only the table labels (following: %s)', (following) => {
    expect(footer(following).split('   ')).toEqual(
      KEY_TABLE.map((binding) => binding.label(following)),
    );
  });

  it.each([true, false])('names no key the view does not handle (following: %s)', (following) => {
    const text = footer(following).toLowerCase();
    for (const word of ['start', 'stop', 'keep', 'abort']) {
      expect(text).not.toContain(word);
    }
  });

  it("reads 'f pause' while following and 'f follow' while paused", () => {
    expect(footer(true)).toContain('f pause');
    expect(footer(true)).not.toContain('f follow');
    expect(footer(false)).toContain('f follow');
    expect(footer(false)).not.toContain('f pause');
  });

  it('is the whole footer line', () => {
    expect(footer(true)).toBe('↑↓ scroll   pgup/pgdn page   f pause   q quit');
    expect(footer(false)).toBe('↑↓ scroll   pgup/pgdn page   f follow   q quit');
  });
});

describe('decodeKeys', () => {
  it.each<[string, string, KeyName[]]>([
    ['ESC[A', '\u001b[A', ['up']],
    ['ESC O A (application mode)', '\u001bOA', ['up']],
    ['ESC[B', '\u001b[B', ['down']],
    ['ESC O B (application mode)', '\u001bOB', ['down']],
    ['ESC[5~', '\u001b[5~', ['pgup']],
    ['ESC[6~', '\u001b[6~', ['pgdown']],
    ['Ctrl+C', '\u0003', ['ctrl-c']],
    ['f', 'f', ['f']],
    ['F', 'F', ['f']],
    ['q', 'q', ['q']],
    ['Q', 'Q', ['q']],
  ])('decodes %s', (_name, input, keys) => {
    expect(decodeKeys(input)).toEqual(keys);
  });

  it.each<[string, string, KeyName[]]>([
    ['right arrow', '\u001b[C', []],
    ['left arrow, application mode', '\u001bOD', []],
    ['home', '\u001b[H', []],
    ['F1', '\u001bOP', []],
    ['F5', '\u001b[15~', []],
    ['delete', '\u001b[3~', []],
    ['ctrl+up', '\u001b[1;5A', []],
    ['shift+pgup', '\u001b[5;2~', []],
    // A skipped sequence's letters are not keys: `ESC[1;5F` is ctrl+end, not f.
    ['ctrl+end', '\u001b[1;5F', []],
    ['shift+F3 (ends in Q)', '\u001b[1;2R\u001bO2Q', []],
    ['unknown then up', '\u001b[1;5Cq\u001b[A', ['q', 'up']],
  ])('skips unknown escape sequences whole: %s', (_name, input, keys) => {
    expect(decodeKeys(input)).toEqual(keys);
  });

  it.each<[string, string, KeyName[]]>([
    ['letters', 'abcxyz', []],
    ['digits and space', '0123 ', []],
    ['enter', '\r', []],
    ['ctrl+d', '\u0004', []],
    ['empty input', '', []],
    ['letters around q', 'aqz', ['q']],
  ])('ignores other keys: %s', (_name, input, keys) => {
    expect(decodeKeys(input)).toEqual(keys);
  });

  it('decodes several keys in one chunk, in order', () => {
    expect(decodeKeys('\u001b[A\u001b[A\u001b[6~fx\u001bOB\u001b[5~F\u0003Q')).toEqual([
      'up',
      'up',
      'pgdown',
      'f',
      'down',
      'pgup',
      'f',
      'ctrl-c',
      'q',
    ]);
  });

  it('every decoded key has an action', () => {
    for (const key of decodeKeys('\u001b[A\u001bOA\u001b[B\u001bOB\u001b[5~\u001b[6~\u0003fFqQ')) {
      expect(actionFor(key)).toBeDefined();
    }
  });
});
