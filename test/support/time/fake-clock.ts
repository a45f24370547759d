/**
 * A clock the unit tests move by hand: `now`, `sleep` and one-shot timers that fire only when
 * `advance` passes their time, in time order, each followed by the promise callbacks it sets off.
 * Nothing waits for real time, so a test's outcome never depends on the machine's speed.
 */
export class FakeClock {
  private time: number;
  private sequence = 0;
  private readonly timers: { at: number; sequence: number; fire: () => void }[] = [];

  constructor(start = Date.UTC(2025, 0, 1)) {
    this.time = start;
  }

  readonly now = (): number => this.time;

  /** Calls `callback` once `ms` have passed; what it returns cancels the call. */
  readonly setTimer = (callback: () => void, ms: number): (() => void) => {
    const timer = { at: this.time + Math.max(0, ms), sequence: this.sequence++, fire: callback };
    this.timers.push(timer);
    return () => {
      const index = this.timers.indexOf(timer);
      if (index >= 0) {
        this.timers.splice(index, 1);
      }
    };
  };

  readonly sleep = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      this.setTimer(resolve, ms);
    });

  /** Timers set and not yet fired or cancelled. */
  get pending(): number {
    return this.timers.length;
  }

  /** Lets every promise callback already due run; no time passes. */
  async settle(): Promise<void> {
    for (let round = 0; round < 10; round += 1) {
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Moves time forward by `ms`, firing each timer due on the way, settling after each. */
  async advance(ms: number): Promise<void> {
    const until = this.time + ms;
    await this.settle();
    for (;;) {
      const next = this.timers
        .filter((timer) => timer.at <= until)
        .sort((a, b) => a.at - b.at || a.sequence - b.sequence)[0];
      if (next === undefined) {
        break;
      }
      this.timers.splice(this.timers.indexOf(next), 1);
      this.time = Math.max(this.time, next.at);
      next.fire();
      await this.settle();
    }
    this.time = until;
  }
}
