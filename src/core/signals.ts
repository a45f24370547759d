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
