/**
 * The log pane (spec §1.1): on the newest line the window follows the tail; scrolled away it stays
 * on the same lines while new ones accrue; a bounded number of lines is kept for scrolling back.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import {
  appendLines,
  applyAction,
  EMPTY_PANE,
  type LogPane,
  RETAINED_LINES,
  visibleLines,
} from './log-pane.ts';

const numbered = (from: number, count: number): string[] =>
  Array.from({ length: count }, (_, index) => `line ${from + index}`);

const paneOf = (count: number, rows: number): LogPane =>
  appendLines(EMPTY_PANE, numbered(1, count), rows);

const scroll = (pane: LogPane, lines: number, rows: number): LogPane =>
  applyAction(pane, { type: 'scroll', lines }, rows);

describe('appendLines: stick and stay', () => {
  it('on the newest line, new lines keep the window on the tail', () => {
    const rows = 3;
    const pane = paneOf(10, rows);
    expect(pane.behind).toBe(0);
    const next = appendLines(pane, numbered(11, 2), rows);
    expect(next.behind).toBe(0);
    expect(visibleLines(next, rows)).toEqual(['line 10', 'line 11', 'line 12']);
    const more = appendLines(next, numbered(13, 50), rows);
    expect(visibleLines(more, rows)).toEqual(['line 60', 'line 61', 'line 62']);
  });

  it('scrolled away, new lines do not move the visible lines', () => {
    const rows = 3;
    const scrolled = scroll(paneOf(10, rows), 2, rows);
    const before = visibleLines(scrolled, rows);
    expect(before).toEqual(['line 6', 'line 7', 'line 8']);
    const next = appendLines(scrolled, numbered(11, 5), rows);
    expect(visibleLines(next, rows)).toEqual(before);
    expect(next.behind).toBe(7);
    // And again: the window stays put however much arrives.
    const more = appendLines(next, numbered(16, 100), rows);
    expect(visibleLines(more, rows)).toEqual(before);
  });

  it('scrolled to the oldest line, new lines leave the window there', () => {
    const rows = 4;
    const top = scroll(paneOf(10, rows), 100, rows);
    expect(visibleLines(top, rows)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
    const next = appendLines(top, numbered(11, 3), rows);
    expect(visibleLines(next, rows)).toEqual(['line 1', 'line 2', 'line 3', 'line 4']);
  });

  it('scrolled away at the retention cap, the same lines stay while the oldest are dropped', () => {
    const rows = 5;
    const full = paneOf(RETAINED_LINES, rows);
    const scrolled = scroll(full, 10, rows);
    const before = visibleLines(scrolled, rows);
    expect(before).toEqual(numbered(RETAINED_LINES - 14, 5));
    const next = appendLines(scrolled, numbered(RETAINED_LINES + 1, 7), rows);
    expect(next.lines).toHaveLength(RETAINED_LINES);
    expect(visibleLines(next, rows)).toEqual(before);
  });

  it('back on the tail after scrolling down, it follows again', () => {
    const rows = 3;
    const away = appendLines(scroll(paneOf(10, rows), 2, rows), numbered(11, 4), rows);
    const back = scroll(away, -away.behind, rows);
    expect(back.behind).toBe(0);
    const next = appendLines(back, numbered(15, 1), rows);
    expect(visibleLines(next, rows)).toEqual(['line 13', 'line 14', 'line 15']);
  });

  it('property: scrolled away the window stays; on the tail it shows the newest lines', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 30 }),
        fc.integer({ min: 0, max: 120 }),
        fc.integer({ min: 0, max: 150 }),
        fc.integer({ min: 0, max: 80 }),
        (rows, initial, up, added) => {
          const pane = scroll(paneOf(initial, rows), up, rows);
          const before = visibleLines(pane, rows);
          const next = appendLines(pane, numbered(initial + 1, added), rows);
          const after = visibleLines(next, rows);
          expect(after.length).toBeLessThanOrEqual(rows);
          if (pane.behind > 0) {
            expect(after).toEqual(before);
          } else {
            expect(after).toEqual(next.lines.slice(-rows));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('appendLines: retention and the started mark', () => {
  it(`keeps at most RETAINED_LINES (${RETAINED_LINES}) lines, dropping the oldest`, () => {
    const pane = paneOf(RETAINED_LINES + 5, 10);
    expect(pane.lines).toHaveLength(RETAINED_LINES);
    expect(pane.lines[0]).toBe('line 6');
    expect(pane.lines.at(-1)).toBe(`line ${RETAINED_LINES + 5}`);
  });

  it('drops the oldest across appends too', () => {
    const full = paneOf(RETAINED_LINES, 10);
    expect(full.lines).toHaveLength(RETAINED_LINES);
    const next = appendLines(full, numbered(RETAINED_LINES + 1, 3), 10);
    expect(next.lines).toHaveLength(RETAINED_LINES);
    expect(next.lines[0]).toBe('line 4');
    expect(next.lines.at(-1)).toBe(`line ${RETAINED_LINES + 3}`);
  });

  it('starts unstarted, empty, on the tail and following', () => {
    expect(EMPTY_PANE).toEqual({ lines: [], behind: 0, following: true, started: false });
  });

  it('appending [] marks the pane started, with no lines', () => {
    const started = appendLines(EMPTY_PANE, [], 5);
    expect(started.started).toBe(true);
    expect(started.lines).toEqual([]);
    expect(appendLines(started, [], 5)).toEqual(started);
  });

  it('appending lines marks the pane started', () => {
    expect(appendLines(EMPTY_PANE, ['hello'], 5).started).toBe(true);
  });

  it('stores lines sanitized', () => {
    const pane = appendLines(EMPTY_PANE, ['\u001b[32mok\u001b[0m', '10%\r100%', 'a\tb'], 5);
    expect(pane.lines).toEqual(['ok', '100%', 'a    b']);
  });
});

describe('applyAction', () => {
  it('toggle-follow flips following and leaves the window', () => {
    const pane = scroll(paneOf(10, 3), 2, 3);
    const paused = applyAction(pane, { type: 'toggle-follow' }, 3);
    expect(paused.following).toBe(false);
    expect(paused.behind).toBe(pane.behind);
    expect(paused.lines).toBe(pane.lines);
    expect(applyAction(paused, { type: 'toggle-follow' }, 3).following).toBe(true);
  });

  it('quit leaves the pane as it is', () => {
    const pane = paneOf(10, 3);
    expect(applyAction(pane, { type: 'quit' }, 3)).toEqual(pane);
  });

  it.each([
    // [lines, rows, scroll by, behind after]
    [10, 3, 1, 1],
    [10, 3, 7, 7],
    [10, 3, 8, 7],
    [10, 3, -1, 0],
    [3, 5, 1, 0],
    [0, 5, 1, 0],
    [10, 0, 3, 3],
    [10, 0, 20, 9],
  ])('%i lines in %i rows, scrolled by %i: behind %i (clamped)', (count, rows, by, behind) => {
    expect(scroll(paneOf(count, rows), by, rows).behind).toBe(behind);
  });

  it.each([
    // [lines, rows, pages, behind after]
    [50, 10, 1, 10],
    [50, 10, 2, 20],
    [50, 10, 5, 40],
    [50, 10, -1, 0],
    [50, 0, 1, 1],
  ])('%i lines in %i rows, paged by %i: behind %i', (count, rows, pages, behind) => {
    expect(applyAction(paneOf(count, rows), { type: 'page', pages }, rows).behind).toBe(behind);
  });
});

describe('visibleLines', () => {
  it('returns the newest `rows` lines on the tail, oldest first', () => {
    expect(visibleLines(paneOf(10, 4), 4)).toEqual(['line 7', 'line 8', 'line 9', 'line 10']);
  });

  it('returns every line when there are fewer than rows', () => {
    expect(visibleLines(paneOf(2, 4), 4)).toEqual(['line 1', 'line 2']);
    expect(visibleLines(EMPTY_PANE, 4)).toEqual([]);
  });

  it('returns nothing for no rows', () => {
    expect(visibleLines(paneOf(5, 3), 0)).toEqual([]);
    expect(visibleLines(paneOf(5, 3), -1)).toEqual([]);
  });

  it('clamps a window left too far back (the screen grew)', () => {
    const pane = scroll(paneOf(10, 2), 8, 2);
    expect(visibleLines(pane, 2)).toEqual(['line 1', 'line 2']);
    expect(visibleLines(pane, 6)).toEqual(numbered(1, 6));
  });

  it('property: at most rows lines, a contiguous run of the pane, oldest first', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 80 }),
        fc.integer({ min: -5, max: 40 }),
        (count, up, rows) => {
          const pane = scroll(paneOf(count, rows), up, rows);
          const visible = visibleLines(pane, rows);
          expect(visible.length).toBeLessThanOrEqual(Math.max(0, rows));
          if (rows > 0) {
            expect(visible.length).toBe(Math.min(rows, count));
          }
          const start = visible.length === 0 ? 0 : pane.lines.indexOf(visible[0] ?? '');
          expect(visible).toEqual(pane.lines.slice(start, start + visible.length));
        },
      ),
      { numRuns: 300 },
    );
  });
});
