/**
 * The one way a test waits for a state: reads `read()` until `done` holds for what it returns,
 * then returns that. For state the code under test reaches on its own schedule (a status field, a
 * log line, a screen, a file), where a fixed sleep would either waste time or be too short on a
 * loaded machine. At the deadline it throws, naming what it waited for and the last value it saw:
 * a wait never ends quietly, so no assertion after it runs on a state that never came.
 */

export interface EventuallyOptions<T> {
  /** Generous by default: a loaded 2-core machine runs the suite; a test never measures it. */
  readonly timeoutMs?: number;
  /** Pause between two reads. */
  readonly intervalMs?: number;
  /** The last value as the error shows it; strings as they are, anything else as JSON. */
  readonly show?: (value: T) => string;
}

const SHOWN_CHARS = 4000;

/** Maps and sets as JSON can show them (JSON.stringify turns both into `{}`). */
function plain(_key: string, value: unknown): unknown {
  return value instanceof Map
    ? Object.fromEntries(value)
    : value instanceof Set
      ? [...(value as Set<unknown>)]
      : value;
}

function shown(value: unknown): string {
  // JSON.stringify gives undefined for undefined, whatever its declared type says.
  const json = JSON.stringify(value, plain) as string | undefined;
  const text = typeof value === 'string' ? value : (json ?? String(value));
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}… (${text.length} chars)` : text;
}

export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  options: EventuallyOptions<T> = {},
): Promise<T> {
  const { timeoutMs = 20_000, intervalMs = 50, show = shown } = options;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) {
      return value;
    }
    if (Date.now() >= deadline) {
      throw new Error(
        `timed out after ${String(timeoutMs)} ms waiting for ${what}; the last value seen:\n${show(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
