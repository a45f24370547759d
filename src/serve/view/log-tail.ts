/**
 * Follows the engine log for the view: the first read takes this run's lines (the log is appended
 * across runs and never rotated, so they begin at `from`, the log's size when this run started;
 * spec §1.1: captured from the engine's first line, a waiting note until it writes), or only the
 * tail of them when there are already many; later reads take what was appended since, in bounded
 * slices, and hand back complete lines (a partial last line waits for its newline). While the
 * view is paused nobody calls `read`, so the offset holds and nothing written meanwhile is lost.
 */
import type { LogsResponse } from '../../core/contract/schemas.ts';
import { MAX_LOG_SLICE, readLogSlice } from '../../core/runner/engine-log.ts';

const FIRST_READ_BYTES = 100 * 1024;

export class LogTail {
  private offset: number | undefined;
  private carry = '';

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
    // The tail starts at a line after `from`, so it never reaches back into an earlier run.
    return long ? readLogSlice(this.path, { limit: FIRST_READ_BYTES }) : slice;
  }

  /** New complete lines since the last read; `exists` is false until the engine has a log. */
  async read(): Promise<{ lines: string[]; exists: boolean }> {
    const lines: string[] = [];
    for (let slices = 0; slices < 16; slices += 1) {
      const slice =
        this.offset === undefined
          ? await this.firstSlice()
          : await readLogSlice(this.path, { offset: this.offset, limit: MAX_LOG_SLICE });
      if (slice.missing === true) {
        return { lines, exists: false };
      }
      if (slice.staleOffset === true) {
        this.carry = '';
      }
      this.offset = slice.nextOffset;
      const parts = (this.carry + slice.content).split('\n');
      this.carry = parts.pop() ?? '';
      lines.push(...parts.map((line) => line.replace(/\r$/, '')));
      if (slice.nextOffset >= slice.size) {
        break;
      }
    }
    return { lines, exists: true };
  }
}
