/**
 * The only code that drives the terminal: alternate screen, raw keys, resize, and drawing
 * frames that layout.ts computed. Each row is written at its own position and only rows that
 * changed are rewritten. `restore()` puts the terminal back and is also registered on process
 * exit, so no exit path leaves the terminal in raw mode or on the alternate screen. Each view
 * brings its own key decoder (its key table), so one driver serves them all (docs/design.md "Shape
 * of the code": one small ANSI driver shared by every view).
 */
import { writeSync } from 'node:fs';
import type { ReadStream, WriteStream } from 'node:tty';

const ENTER = '\u001b[?1049h\u001b[?25l\u001b[2J';
const LEAVE = '\u001b[?25h\u001b[?1049l';

export interface Terminal<K> {
  columns(): number;
  rows(): number;
  draw(lines: readonly string[]): void;
  onKeys(listener: (keys: K[]) => void): void;
  onResize(listener: () => void): void;
  restore(): void;
}

export function openTerminal<K>(
  input: ReadStream,
  output: WriteStream,
  decode: (data: string) => K[],
): Terminal<K> {
  let previous: readonly string[] = [];
  let restored = false;
  const restore = (): void => {
    if (restored) {
      return;
    }
    restored = true;
    input.setRawMode(false);
    input.pause();
    // Synchronous on purpose: this also runs from the process 'exit' handler.
    writeSync((output as WriteStream & { fd: number }).fd, LEAVE);
  };
  process.once('exit', restore);

  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  output.write(ENTER);

  return {
    columns: () => output.columns,
    rows: () => output.rows,
    draw(lines) {
      if (restored) {
        return;
      }
      let frame = '';
      lines.forEach((line, index) => {
        if (previous[index] !== line) {
          frame += `\u001b[${index + 1};1H${line}`;
        }
      });
      if (lines.length < previous.length) {
        frame += `\u001b[${lines.length + 1};1H\u001b[J`;
      }
      previous = lines;
      if (frame !== '') {
        output.write(frame);
      }
    },
    onKeys(listener) {
      input.on('data', (data: string) => {
        listener(decode(data));
      });
    },
    onResize(listener) {
      output.on('resize', () => {
        // A resize can leave old glyphs anywhere: clear and redraw every row.
        previous = [];
        output.write('\u001b[2J');
        listener();
      });
    },
    restore() {
      process.off('exit', restore);
      restore();
    },
  };
}
