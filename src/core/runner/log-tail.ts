/**
 * The engine's last log lines, for a failed start's 400 and a crash's `lastExit` (docs/design.md
 * D23): only what this run wrote (the log is never rotated, so earlier runs' lines precede it),
 * each line cut to a sane width, and every known secret (the engine key, the API token) replaced by
 * `***` before a line leaves the daemon.
 */
import { open, stat } from 'node:fs/promises';

/** Characters kept of one log line; the rest is replaced by `…`. */
export const TAIL_LINE_WIDTH = 240;
/** Bytes read from the end of the log at most: enough for 20 lines at full width. */
const TAIL_READ_BYTES = 16 * 1024;

/**
 * `line` with every secret replaced by `mask(secret)`: `***` unless asked otherwise (a log slice
 * keeps its byte length, redact-log-slice.ts).
 */
export function redactSecrets(
  line: string,
  secrets: readonly string[],
  mask: (secret: string) => string = () => '***',
): string {
  let out = line;
  // Longest first: a secret inside a longer one must not leave the longer one's rest behind.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) {
      out = out.split(secret).join(mask(secret));
    }
  }
  return out;
}

const ESCAPE_SEQUENCE = new RegExp(`${String.fromCharCode(0x1b)}\\[[0-9;?]*[A-Za-z]`, 'g');

function stripControl(line: string): string {
  let out = '';
  for (const char of line.replace(ESCAPE_SEQUENCE, '')) {
    const code = char.charCodeAt(0);
    if (code === 0x09 || (code >= 0x20 && code !== 0x7f)) {
      out += char;
    }
  }
  return out;
}

/** The last `max` non-empty lines of `text`, redacted, then cut to `width`. Pure. */
export function tailLines(
  text: string,
  max: number,
  secrets: readonly string[],
  width = TAIL_LINE_WIDTH,
): string[] {
  const lines = text
    .split(/\r?\n/)
    // Terminal control sequences and other control characters are noise in a JSON reply.
    .map(stripControl)
    .filter((line) => line.trim() !== '');
  return lines.slice(-max).map((line) => {
    // Redact before cutting, so a cut can never leave half a secret behind.
    const redacted = redactSecrets(line, secrets);
    return redacted.length > width ? `${redacted.slice(0, width - 1)}…` : redacted;
  });
}

/**
 * A failed start's reason with this start's last log lines, which a remote caller cannot read
 * for itself. When the engine's output went to svc's own stdio (`shown`), it is on the screen
 * already, just above: the reason stands alone.
 */
export function startFailureMessage(
  reason: string,
  lines: readonly string[],
  shown: boolean,
): string {
  if (shown) {
    return reason;
  }
  return lines.length === 0
    ? `${reason}; the engine wrote nothing to its log`
    : `${reason}; the engine's last log lines:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}

export async function logSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return 0;
  }
}

/** The last `max` lines written to the log at or after byte `from`; [] when there is no log. */
export async function readLogTail(
  path: string,
  from: number,
  max: number,
  secrets: readonly string[],
): Promise<string[]> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch {
    return [];
  }
  try {
    const { size } = await handle.stat();
    const start = Math.max(from, size - TAIL_READ_BYTES, 0);
    const length = Math.max(0, size - start);
    const buffer = Buffer.alloc(length);
    const { bytesRead } =
      length > 0 ? await handle.read(buffer, 0, length, start) : { bytesRead: 0 };
    let text = buffer.subarray(0, bytesRead).toString('utf8');
    if (start > from) {
      // Began mid-line: drop the partial first line.
      text = text.slice(text.indexOf('\n') + 1);
    }
    return tailLines(text, max, secrets);
  } finally {
    await handle.close();
  }
}
