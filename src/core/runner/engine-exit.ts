/** How an engine ended: its own exit code or the signal that ended it, as the watchdog reports it. */
export interface EngineExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export function describeExit(exit: EngineExit): string {
  return exit.signal === null ? `exit code ${exit.code ?? '?'}` : `signal ${exit.signal}`;
}
