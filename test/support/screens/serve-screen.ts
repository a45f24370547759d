/**
 * Reading `svc serve`'s view off a tmux screen: its regions, whether a frame is whole, and waits
 * on what it shows, each bounded by an event (the engine log on disk, the view's own metrics
 * redraws) rather than by a sleep.
 */
import { readFile } from 'node:fs/promises';

import { fit, sanitizeLine } from '../../../src/core/view/text.ts';
import { eventually } from '../time/eventually.ts';
import type { TmuxSession } from './tmux.ts';

/** The log pane's rows: between the second and the third divider. */
export function logRows(screen: string): string[] {
  const rows = screen.split('\n');
  const dividers = rows.flatMap((row, index) => (row.startsWith('────') ? [index] : []));
  return rows.slice((dividers[1] ?? 0) + 1, dividers[2] ?? rows.length);
}

/** Where the dividers are: the metrics section keeps its height, so these stay put. */
export function dividerRows(screen: string): number[] {
  return screen.split('\n').flatMap((row, index) => (row.startsWith('────') ? [index] : []));
}

/** Whether `screen` is one whole frame for columns × rows: title, three dividers, the keys last. */
export function wholeFrame(screen: string, columns: number, rows: number): boolean {
  const lines = screen.replace(/\n$/, '').split('\n');
  return (
    lines.length === rows &&
    (lines[0] ?? '').startsWith('svc serve ·') &&
    lines.filter((line) => line === '─'.repeat(columns)).length === 3 &&
    (lines.at(-1) ?? '').startsWith('↑↓ scroll')
  );
}

/** The rows with text, for comparing what the pane shows with the engine log. */
export function filled(rows: readonly string[]): string[] {
  return rows.map((row) => row.trimEnd()).filter((row) => row !== '');
}

export function sameRows(a: readonly string[], b: readonly string[]): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The log's whole lines with text, each as the view draws it (sanitized, clipped; no padding). */
async function drawnLines(log: string, columns: number): Promise<string[]> {
  const text = await readFile(log, 'utf8').catch(() => '');
  return filled(
    text
      .slice(0, text.lastIndexOf('\n') + 1)
      .split('\n')
      .map((line) => fit(sanitizeLine(line), columns)),
  );
}

/** Waits until the pane's last line is the engine log's last whole line; returns the pane. */
export async function showingTail(
  term: TmuxSession,
  log: string,
  columns: number,
): Promise<string[]> {
  const seen = await eventually(
    async () => ({ lines: await drawnLines(log, columns), rows: logRows(await term.capture()) }),
    ({ lines, rows }) => lines.length > 0 && filled(rows).at(-1) === lines.at(-1),
    "the log pane on the engine log's last line",
    { show: ({ lines, rows }) => `log ends: ${lines.at(-1) ?? ''}\npane:\n${rows.join('\n')}` },
  );
  return seen.rows;
}

/** Waits until the engine has written whole lines past `before` to its log. */
export async function logGrown(log: string, before: string): Promise<void> {
  await eventually(
    () => readFile(log, 'utf8'),
    (text) => text.length > before.length && text.endsWith('\n'),
    'the engine writing new lines to its log',
    { show: (text) => `${before.length} bytes before, ${text.length} now:\n${text.slice(-2000)}` },
  );
}

/**
 * Waits until the view has redrawn its metrics `times` more times (each redraw moves the uptime
 * on), and returns that screen: a bound, by the view's own loop, for checks that nothing else
 * changed.
 */
export async function metricsRedrawn(term: TmuxSession, times: number): Promise<string> {
  const uptime = (screen: string): string => /\(up ([^)]*)\)/.exec(screen)?.[1] ?? '';
  let screen = await term.capture();
  for (let redraw = 0; redraw < times; redraw += 1) {
    const shown = uptime(screen);
    screen = await eventually(
      () => term.capture(),
      (now) => uptime(now) !== '' && uptime(now) !== shown,
      `the metrics redrawn past "up ${shown}"`,
    );
  }
  return screen;
}
