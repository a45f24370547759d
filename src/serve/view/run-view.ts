/**
 * The live view's loop: follows the engine log, refreshes the metrics from the record on a local
 * cadence, answers keys, redraws on resize, and closes when the engine is gone. All drawing goes
 * through layout() (pure) and the terminal driver.
 */
import type { ReadStream, WriteStream } from 'node:tty';

import type { StateRecord } from '../../core/state/record.ts';
import { statsOf } from '../../core/state/record.ts';
import { gpuIndexesOf } from '../../core/view/metrics-pane.ts';
import { openTerminal } from '../../core/view/terminal.ts';
import { actionFor, decodeKeys } from './keys.ts';
import { layout, logRows, type ViewState } from './layout.ts';
import { appendLines, applyAction, EMPTY_PANE } from './log-pane.ts';
import { LogTail } from './log-tail.ts';

export interface ViewOptions {
  readonly input: ReadStream;
  readonly output: WriteStream;
  readonly source: string;
  readonly record: StateRecord;
  readonly logPath: string;
  /** Where this run's lines begin in the log, which earlier runs' lines precede. */
  readonly logFrom: number;
  /** svc's own log records; the newest is shown in the title (stderr would tear the screen). */
  readonly svcLines: string[];
  /** Settles when the engine has exited; the view closes then. */
  readonly finished: Promise<number>;
  /** Asks for the engine to stop (q, Ctrl+C). */
  readonly quit: () => void;
  readonly staleAfterMs: number;
}

const LOG_POLL_MS = 250;
const METRICS_REFRESH_MS = 1_000;

export async function runView(options: ViewOptions): Promise<void> {
  const terminal = openTerminal(options.input, options.output, decodeKeys);
  const tail = new LogTail(options.logPath, options.logFrom);
  // A GPU once seen keeps its rows, so the metrics section never shrinks under the log.
  const gpuSlots = new Set<number>();
  const metricsNow = (): ViewState['metrics'] => {
    const now = new Date();
    const snapshot = options.record.snapshot();
    const age = snapshot.sampledAt === undefined ? 0 : now.getTime() - snapshot.sampledAt.getTime();
    const stats = statsOf(snapshot, now);
    for (const index of gpuIndexesOf(stats)) {
      gpuSlots.add(index);
    }
    return {
      stats,
      now,
      gpuSlots: [...gpuSlots],
      ...(snapshot.state === 'running' && age >= options.staleAfterMs
        ? { staleSeconds: Math.floor(age / 1000) }
        : {}),
    };
  };
  let state: ViewState = { source: options.source, metrics: metricsNow(), log: EMPTY_PANE };
  const rows = (): number => logRows(state, terminal.columns(), terminal.rows());
  const render = (): void => {
    terminal.draw(layout(state, terminal.columns(), terminal.rows()));
  };

  let reading = false;
  let stopping = false;
  const pollLog = async (): Promise<void> => {
    if (reading || !state.log.following) {
      return;
    }
    reading = true;
    try {
      const { lines, exists } = await tail.read();
      // svc's own records are not engine output: the newest shows in the title, not the pane.
      const latest = options.svcLines.splice(0).at(-1);
      if (latest !== undefined && !stopping) {
        state = { ...state, notice: latest };
      }
      if (exists) {
        state = { ...state, log: appendLines(state.log, lines, rows()) };
      }
      if (exists || latest !== undefined) {
        render();
      }
    } finally {
      reading = false;
    }
  };

  terminal.onKeys((keys) => {
    for (const key of keys) {
      const action = actionFor(key);
      if (action === undefined) {
        continue;
      }
      if (action.type === 'quit') {
        stopping = true;
        state = { ...state, notice: 'stopping the engine…' };
        options.quit();
      } else {
        state = { ...state, log: applyAction(state.log, action, rows()) };
      }
    }
    render();
    void pollLog();
  });
  terminal.onResize(render);

  const logTimer = setInterval(() => void pollLog(), LOG_POLL_MS);
  const metricsTimer = setInterval(() => {
    state = { ...state, metrics: metricsNow() };
    render();
  }, METRICS_REFRESH_MS);
  render();
  void pollLog();
  try {
    await options.finished;
  } finally {
    clearInterval(logTimer);
    clearInterval(metricsTimer);
    terminal.restore();
  }
}
