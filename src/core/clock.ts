/**
 * The one clock type: a reading in milliseconds, injected wherever a stateful part asks the time,
 * so its unit tests run on a clock they move by hand. Which scale it reads (the wall clock's epoch
 * or `performance.now()`) is the injecting module's to say.
 */
export type Clock = () => number;

/** The wall clock, milliseconds since the epoch: the default where none is injected. */
export const wallClock: Clock = () => Date.now();
