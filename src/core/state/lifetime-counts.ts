/** What this process's supervisor counted since it started (the node's Prometheus counters). */
export interface LifetimeCounts {
  /** Engines started (a failed start is not one). */
  readonly starts: number;
  /** Engines that exited unprompted while running. */
  readonly crashes: number;
  /** The last engine exit's code, when it exited with one (not by a signal). */
  readonly lastExitCode?: number;
  /** docs/design.md D32: engine slots saved before a stop, and restored after a start. */
  readonly slotSaves?: number;
  readonly slotRestores?: number;
}
