/**
 * The log pane's state as a pure reducer (spec §1.1): follow and pause, scrolling by line and by
 * page with the window held at either end, and the stick-and-stay rule: on the newest line the
 * window follows the tail; scrolled away it stays on the same lines while new ones accrue.
 */
import { sanitizeLine } from '../../core/view/text.ts';
import type { ViewAction } from './keys.ts';

/** Lines kept for scrolling back; older ones are dropped. */
export const RETAINED_LINES = 2000;

export interface LogPane {
  readonly lines: readonly string[];
  /** How many lines the window's bottom sits above the newest line; 0 follows the tail. */
  readonly behind: number;
  /** False while paused with `f`: no new lines are read (the reader holds its offset). */
  readonly following: boolean;
  /** Whether anything has been read yet (an engine that wrote nothing shows a waiting note). */
  readonly started: boolean;
}

export const EMPTY_PANE: LogPane = { lines: [], behind: 0, following: true, started: false };

function maxBehind(lines: number, rows: number): number {
  return Math.max(0, lines - Math.max(1, rows));
}

export function appendLines(pane: LogPane, raw: readonly string[], rows: number): LogPane {
  if (raw.length === 0) {
    return pane.started ? pane : { ...pane, started: true };
  }
  const all = [...pane.lines, ...raw.map(sanitizeLine)];
  const lines = all.length > RETAINED_LINES ? all.slice(all.length - RETAINED_LINES) : all;
  // Scrolled away: move with the new lines so the same ones stay in view.
  const behind =
    pane.behind === 0 ? 0 : Math.min(pane.behind + raw.length, maxBehind(lines.length, rows));
  return { ...pane, lines, behind, started: true };
}

export function applyAction(pane: LogPane, action: ViewAction, rows: number): LogPane {
  const clamp = (behind: number): number =>
    Math.min(Math.max(0, behind), maxBehind(pane.lines.length, rows));
  switch (action.type) {
    case 'scroll':
      return { ...pane, behind: clamp(pane.behind + action.lines) };
    case 'page':
      return { ...pane, behind: clamp(pane.behind + action.pages * Math.max(1, rows)) };
    case 'toggle-follow':
      return { ...pane, following: !pane.following };
    case 'quit':
      return pane;
  }
}

/** The lines visible in a window of `rows`, oldest first. */
export function visibleLines(pane: LogPane, rows: number): readonly string[] {
  if (rows <= 0) {
    return [];
  }
  const behind = Math.min(pane.behind, maxBehind(pane.lines.length, rows));
  const end = pane.lines.length - behind;
  return pane.lines.slice(Math.max(0, end - rows), end);
}
