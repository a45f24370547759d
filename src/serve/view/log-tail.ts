/**
 * Follows the engine log for the view: the first read takes the tail, later reads take what was
 * appended since, in bounded slices, and hand back complete lines (a partial last line waits for
 * its newline). While the view is paused nobody calls `read`, so the offset holds and nothing
 * written meanwhile is lost.
 */
import { MAX_LOG_SLICE, readLogSlice } from '../../core/runner/engine-log.ts';

const FIRST_READ_BYTES = 100 * 1024;

export class LogTail {
  private offset: number | undefined;
  private carry = '';

  constructor(private readonly path: string) {}

  /** New complete lines since the last read; `exists` is false until the engine has a log. */
  async read(): Promise<{ lines: string[]; exists: boolean }> {
    const lines: string[] = [];
    for (let slices = 0; slices < 16; slices += 1) {
      const slice = await readLogSlice(
        this.path,
        this.offset === undefined
          ? { limit: FIRST_READ_BYTES }
          : { offset: this.offset, limit: MAX_LOG_SLICE },
      );
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
