/**
 * A node command's output as log lines (docs/design.md D26): each stream's chunks are cut at
 * newlines (a character split across chunks is kept whole), control characters are dropped, every
 * known secret is replaced by `***`, each line is cut to a sane width, and the last few are kept
 * for the error a failed wake returns. No I/O: chunks in, lines to a callback out.
 */
import { StringDecoder } from 'node:string_decoder';

import { tailLines } from '../../core/runner/log-tail.ts';

export type OutputStream = 'stdout' | 'stderr';

/** Lines a failed command's error shows. */
export const KEPT_LINES = 5;
/** A line with no newline in sight is let out at this length rather than held without bound. */
const LONGEST_PENDING = 4_096;

export class CommandOutput {
  private readonly decoders = {
    stdout: new StringDecoder('utf8'),
    stderr: new StringDecoder('utf8'),
  };
  private readonly pending = { stdout: '', stderr: '' };
  private readonly kept: string[] = [];

  constructor(
    private readonly onLine: (stream: OutputStream, line: string) => void,
    private readonly secrets: readonly string[],
  ) {}

  push(stream: OutputStream, chunk: Buffer | string): void {
    let text =
      this.pending[stream] +
      (typeof chunk === 'string' ? chunk : this.decoders[stream].write(chunk));
    let newline = text.indexOf('\n');
    while (newline >= 0) {
      this.emit(stream, text.slice(0, newline));
      text = text.slice(newline + 1);
      newline = text.indexOf('\n');
    }
    if (text.length >= LONGEST_PENDING) {
      this.emit(stream, text);
      text = '';
    }
    this.pending[stream] = text;
  }

  /** Lets out what is left of each stream: the command has ended. */
  flush(): void {
    for (const stream of ['stdout', 'stderr'] as const) {
      const rest = this.pending[stream] + this.decoders[stream].end();
      this.pending[stream] = '';
      this.emit(stream, rest);
    }
  }

  /** The last KEPT_LINES lines of both streams, in arrival order. */
  lastLines(): readonly string[] {
    return [...this.kept];
  }

  private emit(stream: OutputStream, raw: string): void {
    // Blank lines are dropped; redacted before cutting, so no cut leaves half a secret.
    for (const line of tailLines(raw, 1, this.secrets)) {
      this.kept.push(line);
      if (this.kept.length > KEPT_LINES) {
        this.kept.shift();
      }
      this.onLine(stream, line);
    }
  }
}
