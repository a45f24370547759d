/**
 * Follows the engine log for the view through the one log cursor (core/runner/log-cursor.ts). The
 * first read takes this run's lines (the log is appended across runs and never rotated, so they
 * begin at `from`, the log's size when this run started; spec §1.1: captured from the engine's
 * first line, a waiting note until it writes), or only the tail of them when there are already
 * many; later reads take what was appended since, in bounded slices. While the view is paused
 * nobody calls `read`, so the offset holds and nothing written meanwhile is lost.
 */
import type { LogsResponse } from '../../core/contract/schemas.ts';
import { MAX_LOG_SLICE, readLogSlice } from '../../core/runner/engine-log.ts';
import { advance, type LogCursor } from '../../core/runner/log-cursor.ts';

const FIRST_READ_BYTES = 100 * 1024;

/** Slices read at most per call, so a flood of output cannot hold the view's loop. */
const SLICES_PER_READ = 16;

export class LogTail {
  /** Absent until the log has been found. */
  private cursor: LogCursor | undefined;

  /** `from`: where this run's lines begin in the log. */
  constructor(
    private readonly path: string,
    private readonly from = 0,
  ) {}

  /** This run's lines from their start, or their last FIRST_READ_BYTES when there are more. */
  private async firstSlice(): Promise<LogsResponse> {
    const slice = await readLogSlice(this.path, { offset: this.from, limit: FIRST_READ_BYTES });
    const long =
      slice.missing !== true &&
      slice.staleOffset !== true &&
      slice.size - this.from > FIRST_READ_BYTES;
    // The tail starts at a line start after `from`, so it never reaches back into an earlier run.
    return long ? readLogSlice(this.path, { limit: FIRST_READ_BYTES }) : slice;
  }

  /** New complete lines since the last read; `exists` is false until the engine has a log. */
  async read(): Promise<{ lines: string[]; exists: boolean }> {
    const lines: string[] = [];
    for (let slices = 0; slices < SLICES_PER_READ; slices += 1) {
      const cursor = this.cursor;
      const slice =
        cursor === undefined
          ? await this.firstSlice()
          : await readLogSlice(this.path, { offset: cursor.offset ?? 0, limit: MAX_LOG_SLICE });
      if (slice.missing === true) {
        return { lines, exists: false };
      }
      // Either first slice begins at a line start: this run's first byte, or a trimmed tail.
      const step = advance(cursor ?? { offset: this.from, carry: '' }, slice);
      this.cursor = step.cursor;
      lines.push(...step.lines);
      if (!step.more) {
        break;
      }
    }
    return { lines, exists: true };
  }
}
