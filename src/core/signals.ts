/**
 * The shutdown signal a long-running command waits for. Listen before announcing the listener:
 * a SIGTERM that arrives the moment "listening" is printed must shut down cleanly, not end the
 * process through the default action.
 */
export function nextShutdownSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
}

/**
 * Runs `step` every `intervalMs` until SIGINT or SIGTERM, for a command that watches (`-w`) or
 * follows (`-f`): the wait between steps ends at the signal, and no step starts after it. With
 * `first`, one step runs at once, already under the signal's listener.
 */
export async function everyUntilShutdown(
  intervalMs: number,
  step: () => Promise<void>,
  first = false,
): Promise<void> {
  const stop = new AbortController();
  const signal = nextShutdownSignal().then(() => {
    stop.abort();
  });
  const stopped = (): boolean => stop.signal.aborted;
  if (first) {
    await step();
  }
  while (!stopped()) {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      signal,
      new Promise((resolve) => {
        timer = setTimeout(resolve, intervalMs);
      }),
    ]);
    clearTimeout(timer);
    if (!stopped()) {
      await step();
    }
  }
}
