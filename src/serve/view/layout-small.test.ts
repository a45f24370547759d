/**
 * The screen when space or output is short: a note while the engine has written nothing, a
 * small terminal shortening the metrics first and keeping a log row, the log's rows and paging,
 * and a paused log window that stays put as readings arrive.
 */
import { describe, expect, it } from 'vitest';

import {
  divider,
  IDLE,
  logRegion,
  now,
  numbered,
  RUNNING,
  stateOf,
  TALL,
  withLog,
} from '../../../test/support/screens/serve-view-states.ts';
import type { Stats } from '../../core/contract/schemas.ts';
import { metricsLines } from '../../core/view/metrics-pane.ts';
import { fit } from '../../core/view/text.ts';
import { footer } from './keys.ts';
import { layout, logRows, type ViewState } from './layout.ts';
import { appendLines, applyAction, EMPTY_PANE } from './log-pane.ts';

describe('layout: waiting for the engine', () => {
  it('shows a note, not an empty pane, before anything is read', () => {
    const region = logRegion(layout(stateOf(RUNNING, EMPTY_PANE), 80, 24), 80);
    expect(region[0]).toBe(fit('waiting for the engine log…', 80));
    expect(region.slice(1).every((line) => line.trim() === '')).toBe(true);
  });

  it('shows a note, not an empty pane, when the engine has written nothing yet', () => {
    const started = appendLines(EMPTY_PANE, [], 8);
    const region = logRegion(layout(stateOf(RUNNING, started), 80, 24), 80);
    expect(region[0]).toBe(
      fit('the engine has written nothing yet; waiting for its first line…', 80),
    );
  });

  it('shows the note on the one log row of a small screen too', () => {
    expect(layout(stateOf(RUNNING, EMPTY_PANE), 40, 3)[1]).toBe(
      fit('waiting for the engine log…', 40),
    );
  });

  it('drops the note once a line arrives', () => {
    const region = logRegion(layout(withLog(1), 80, 24), 80);
    expect(region[0]).toBe(fit('log 1', 80));
    expect(region.join('')).not.toContain('waiting');
  });
});

describe('layout: a small terminal', () => {
  it('shortens the metrics section first, from the bottom, keeping one log row', () => {
    const state = withLog(100);
    const metrics = metricsLines(state.metrics, 80).map((line) => fit(line, 80));
    const lines = layout(state, 80, 10);
    expect(lines).toEqual([
      fit('svc serve · ./Svcfile   log: following', 80),
      divider(80),
      ...metrics.slice(0, 4),
      divider(80),
      fit('log 100', 80),
      divider(80),
      fit(footer(true), 80),
    ]);
    expect(logRows(state, 80, 10)).toBe(1);
  });

  it('gives rows back to the log only once the metrics are whole', () => {
    const state = withLog(100);
    const metrics = metricsLines(state.metrics, 80).length;
    for (let rows = 6; rows <= 5 + metrics + 1; rows += 1) {
      expect(logRows(state, 80, rows)).toBe(1);
    }
    expect(logRows(state, 80, 5 + metrics + 2)).toBe(2);
    expect(logRows(state, 80, 5 + metrics + 10)).toBe(10);
  });

  it('keeps a log row however tall the metrics section (eight GPUs)', () => {
    const state = withLog(100, TALL);
    expect(metricsLines(state.metrics, 60).length).toBeGreaterThan(20);
    for (const rows of [6, 8, 12, 20]) {
      const lines = layout(state, 60, rows);
      expect(lines).toHaveLength(rows);
      expect(logRegion(lines, 60)).toEqual([fit('log 100', 60)]);
    }
  });

  it('at 6 rows draws the frame with no metrics', () => {
    expect(layout(withLog(100), 20, 6)).toEqual([
      fit('svc serve · ./Svcfile   log: following', 20),
      divider(20),
      divider(20),
      fit('log 100', 20),
      divider(20),
      fit(footer(true), 20),
    ]);
  });

  it('at 3 rows is the title, the newest log line and the keys', () => {
    expect(layout(withLog(100), 10, 3)).toEqual(['svc serve ', 'log 100   ', '↑↓ scroll ']);
  });

  it('at 1 row is the newest log line alone (the log keeps a row first)', () => {
    expect(layout(withLog(100), 12, 1)).toEqual([fit('log 100', 12)]);
  });

  // spec §1.1 keeps at least one log row, at 2 rows too.
  it('at 2 rows keeps a log row', () => {
    const lines = layout(withLog(100), 20, 2);
    expect(lines).toContain(fit('log 100', 20));
  });
});

describe('logRows', () => {
  it.each([
    [80, 24],
    [120, 40],
    [40, 10],
    [20, 6],
    [30, 7],
    [200, 80],
  ])('at %i×%i equals the log rows of the layout', (columns, rows) => {
    for (const state of [withLog(500), withLog(0, IDLE), withLog(500, TALL)]) {
      expect(logRegion(layout(state, columns, rows), columns)).toHaveLength(
        logRows(state, columns, rows),
      );
    }
  });

  it('at 3 rows is the one log row', () => {
    expect(logRows(withLog(500), 40, 3)).toBe(1);
    expect(layout(withLog(500), 40, 3)[1]).toBe(fit('log 500', 40));
  });

  it('pages by what is on screen: pgup brings the lines just above into view', () => {
    const state = withLog(300);
    const rows = logRows(state, 80, 30);
    const before = logRegion(layout(state, 80, 30), 80);
    const paged = { ...state, log: applyAction(state.log, { type: 'page', pages: 1 }, rows) };
    const after = logRegion(layout(paged, 80, 30), 80);
    expect(after).toHaveLength(before.length);
    expect(after.at(-1)).toBe(fit(`log ${300 - rows}`, 80));
    expect(before[0]).toBe(fit(`log ${300 - rows + 1}`, 80));
  });
});

describe('layout: a steady metrics section', () => {
  it('a paused log window stays where it is as readings arrive', () => {
    const paused = applyAction(
      appendLines(EMPTY_PANE, numbered(1, 200), 10),
      { type: 'toggle-follow' },
      10,
    );
    const first: Stats = { state: 'running', uptimeSeconds: 1 };
    const later: Stats = { ...RUNNING, errors: ['a', 'b'], gpus: [] };
    const withSlots = (stats: Stats): ViewState => ({
      ...stateOf(stats, paused),
      metrics: { stats, now, gpuSlots: [0] },
    });
    const before = layout(withSlots(first), 80, 30);
    const after = layout(withSlots(later), 80, 30);
    expect(logRegion(after, 80)).toEqual(logRegion(before, 80));
    expect(logRows(withSlots(first), 80, 30)).toBe(logRows(withSlots(later), 80, 30));
  });
});
