/**
 * Reads `read()` until `done` holds for what it returns, then returns that: for state the code
 * under test refreshes on its own schedule (the gateway's node snapshots), where a fixed sleep
 * would either waste time or be too short on a loaded machine.
 */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${what} did not happen within ${String(timeoutMs)} ms; last: ${JSON.stringify(value)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
