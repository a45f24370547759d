/**
 * The whole screen as a pure function: (view state, columns, rows) → exactly `rows` lines, each
 * exactly `columns` wide. Top to bottom: a title, the metrics section, the engine log, the footer
 * of keys. A small terminal shortens the metrics section first and always keeps at least one log
 * row; nothing is ever wider than the screen.
 */
import { metricsLines, type MetricsView } from '../../core/view/metrics-pane.ts';
import { fit, sanitizeLine } from '../../core/view/text.ts';
import { footer } from './keys.ts';
import type { LogPane } from './log-pane.ts';
import { visibleLines } from './log-pane.ts';

export interface ViewState {
  /** Where the Svcfile came from. */
  readonly source: string;
  readonly metrics: MetricsView;
  readonly log: LogPane;
  /** A passing notice in the title (for example "stopping the engine…"). */
  readonly notice?: string;
}

/** Rows the fixed parts take: the title, three dividers and the footer. */
const FIXED_ROWS = 5;

/** How the rows are shared: the metrics section shrinks first; the log keeps at least one row. */
function regions(
  state: ViewState,
  columns: number,
  rows: number,
): { metrics: string[]; logHeight: number } {
  if (rows < FIXED_ROWS + 1) {
    // No room for the frame: title, log, footer; the log keeps a row before anything else.
    return { metrics: [], logHeight: rows >= 3 ? rows - 2 : 1 };
  }
  const all = metricsLines(state.metrics, columns);
  const metricsHeight = Math.min(all.length, Math.max(0, rows - FIXED_ROWS - 1));
  return {
    metrics: all.slice(0, metricsHeight),
    logHeight: Math.max(1, rows - FIXED_ROWS - metricsHeight),
  };
}

/** Rows of the log pane on a screen this size (what a page is). */
export function logRows(state: ViewState, columns: number, rows: number): number {
  return regions(state, columns, rows).logHeight;
}

function logText(state: ViewState, height: number): string[] {
  if (state.log.lines.length === 0) {
    return [
      state.log.started
        ? 'the engine has written nothing yet; waiting for its first line…'
        : 'waiting for the engine log…',
    ];
  }
  return [...visibleLines(state.log, height)];
}

export function layout(state: ViewState, columns: number, rows: number): string[] {
  if (rows <= 0 || columns <= 0) {
    return [];
  }
  const follow = state.log.following ? 'log: following' : 'log: paused';
  const title = `svc serve · ${state.source}   ${follow}${state.notice === undefined ? '' : `   ${state.notice}`}`;
  const keys = footer(state.log.following);
  const { metrics, logHeight } = regions(state, columns, rows);
  const log = logText(state, logHeight);
  const padded = [...log, ...Array<string>(Math.max(0, logHeight - log.length)).fill('')];

  let screen: string[];
  if (rows >= FIXED_ROWS + 1) {
    const divider = '─'.repeat(columns);
    screen = [title, divider, ...metrics, divider, ...padded, divider, keys];
  } else {
    // Too small for the frame: the log first, then the title, then the keys.
    screen = rows >= 3 ? [title, ...padded, keys] : rows === 2 ? [title, ...padded] : padded;
  }
  // Everything drawn is plain text: a title or metric may hold what an engine or a tool printed.
  return screen.slice(0, rows).map((line) => fit(sanitizeLine(line), columns));
}
