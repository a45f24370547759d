/**
 * The fleet dashboard as a pure function: (state, columns, rows) → exactly `rows` lines, each
 * exactly `columns` wide, drawn with the serve view's blocks (src/core/view). The list screen has
 * a row per node: state, readiness, busy/slots (docs/design.md D25), model, last active, tokens/s,
 * GPU and memory gauges; the title names what waits in the gateway's queue. The detail screen shows
 * one node's metrics section (the serve view's) above its recent log.
 */
import type { NodeStats } from '../../core/fleet/drivers/node-driver.ts';
import { capacityOf, capacityText } from '../../core/fleet/state/capacity.ts';
import { formatDuration, gauge } from '../../core/view/gauges.ts';
import { metricsLines } from '../../core/view/metrics-pane.ts';
import { displayWidth, fit, sanitizeLine } from '../../core/view/text.ts';
import type { Rates } from '../metrics.ts';
import { dashboardFooter } from './dashboard-keys.ts';

export type NodeReading =
  | { readonly ok: true; readonly stats: NodeStats; readonly rates?: Rates }
  | { readonly ok: false; readonly outcome: string; readonly detail: string };

export interface DashboardNode {
  readonly name: string;
  /** Absent until the first refresh answers. */
  readonly reading?: NodeReading;
}

export interface DashboardState {
  readonly fleetPath: string;
  readonly nodes: readonly DashboardNode[];
  readonly selected: number;
  readonly screen: 'list' | 'detail';
  /** The selected node's recent engine log (detail screen). */
  readonly log: readonly string[];
  readonly notice?: string;
  /** A forced stop of this node asks first (docs/design.md D33): the footer asks, y/n answers. */
  readonly confirm?: string;
  /** Requests waiting in the gateway's queue by model, when the fleet's gateway answered. */
  readonly queued?: Readonly<Record<string, number>>;
  readonly now: Date;
}

const GAUGE = 10;

function percentText(value: number | undefined): string {
  return value === undefined ? '  —' : `${String(Math.round(value)).padStart(3)}%`;
}

function gpuPercent(stats: NodeStats): { util?: number } {
  const gpus = stats.gpus ?? [];
  if (gpus.length === 0) {
    return {};
  }
  return { util: gpus.reduce((sum, gpu) => sum + (gpu.utilization ?? 0), 0) / gpus.length };
}

function memoryPercent(stats: NodeStats): number | undefined {
  // GPU memory where the node has GPUs (what a model fills), else system memory.
  const gpus = (stats.gpus ?? []).filter(
    (gpu) => gpu.memoryUsed !== undefined && gpu.memoryTotal !== undefined && gpu.memoryTotal > 0,
  );
  if (gpus.length > 0) {
    const used = gpus.reduce((sum, gpu) => sum + (gpu.memoryUsed ?? 0), 0);
    const total = gpus.reduce((sum, gpu) => sum + (gpu.memoryTotal ?? 0), 0);
    return (used / total) * 100;
  }
  const memory = stats.memory;
  return memory === undefined || memory.total <= 0 ? undefined : (memory.used / memory.total) * 100;
}

function lastActive(stats: NodeStats, now: Date): string {
  if (stats.lastActiveAt === undefined) {
    return '—';
  }
  const ago = (now.getTime() - Date.parse(stats.lastActiveAt)) / 1000;
  return ago < 1 ? 'just now' : `${formatDuration(ago)} ago`;
}

/** A node's row: its cells, and for a node that did not answer the reason after them. */
interface Row {
  readonly cells: readonly string[];
  /** Not a column: a long reason must not widen the table past the screen for every row. */
  readonly reason?: string;
}

function cells(node: DashboardNode, now: Date): Row {
  const reading = node.reading;
  if (reading === undefined) {
    return { cells: [node.name, 'asking…'] };
  }
  if (!reading.ok) {
    return { cells: [node.name, reading.outcome], reason: reading.detail };
  }
  const stats = reading.stats;
  const memory = memoryPercent(stats);
  const { util } = gpuPercent(stats);
  const row = [
    node.name,
    stats.state,
    stats.ready === undefined ? '—' : stats.ready === 'ready' ? 'ready' : 'loading',
    (stats.state === 'running' ? capacityText(capacityOf(stats)) : '') || '—',
    stats.servedName ?? stats.modelId ?? '—',
    lastActive(stats, now),
    reading.rates === undefined ? '—' : reading.rates.tokensPerSecond.toFixed(1),
    `${gauge(util, GAUGE)}${percentText(util)}`,
    `${gauge(memory, GAUGE)}${percentText(memory)}`,
  ];
  return { cells: row };
}

const HEADER = ['NODE', 'STATE', 'READY', 'BUSY', 'MODEL', 'LAST ACTIVE', 'TOK/S', 'GPU', 'MEM'];

function listLines(state: DashboardState): string[] {
  const rows = state.nodes.map((node) => cells(node, state.now));
  const widths = HEADER.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => displayWidth(row.cells[column] ?? ''))),
  );
  const line = (row: Row, mark: string): string => {
    const padded = row.cells.map(
      (cell, column) => cell + ' '.repeat(Math.max(0, (widths[column] ?? 0) - displayWidth(cell))),
    );
    return `${mark} ${[...padded, ...(row.reason === undefined ? [] : [row.reason])].join('  ')}`;
  };
  return [
    line({ cells: HEADER }, ' '),
    ...rows.map((row, index) => line(row, index === state.selected ? '>' : ' ')),
  ];
}

function detailLines(state: DashboardState, columns: number, height: number): string[] {
  const node = state.nodes[state.selected];
  const reading = node?.reading;
  const metrics =
    reading?.ok === true
      ? metricsLines({ stats: reading.stats, now: state.now }, columns)
      : [reading === undefined ? 'asking…' : `${reading.outcome}: ${reading.detail}`];
  const logHeight = Math.max(1, height - metrics.length - 1);
  const log = state.log.length === 0 ? ['no engine log yet'] : state.log.slice(-logHeight);
  return [...metrics, '─'.repeat(columns), ...log];
}

export function dashboardLayout(state: DashboardState, columns: number, rows: number): string[] {
  if (rows <= 0 || columns <= 0) {
    return [];
  }
  const node = state.nodes[state.selected];
  const where = state.screen === 'detail' && node !== undefined ? ` · ${node.name}` : '';
  const waiting = Object.entries(state.queued ?? {}).map(([model, count]) => `${model} ${count}`);
  const queued = waiting.length === 0 ? '' : ` · queued ${waiting.join(', ')}`;
  const title = `svc fleet dashboard · ${state.fleetPath}${where}${queued}${state.notice === undefined ? '' : `   ${state.notice}`}`;
  const divider = '─'.repeat(columns);
  const bodyHeight = Math.max(0, rows - 4);
  const body =
    state.screen === 'detail' ? detailLines(state, columns, bodyHeight) : listLines(state);
  const shown = body.slice(0, bodyHeight);
  const screen = [
    title,
    divider,
    ...shown,
    ...Array<string>(bodyHeight - shown.length).fill(''),
    divider,
    state.confirm === undefined
      ? dashboardFooter(state.screen)
      : `force-stop ${state.confirm}? Its requests in flight are cut.   ${dashboardFooter('confirm')}`,
  ];
  // Everything drawn is plain text: a model name or a log line may hold escape sequences.
  return screen.slice(0, rows).map((line) => fit(sanitizeLine(line), columns));
}
