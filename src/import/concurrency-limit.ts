/**
 * llama-swap's `concurrencyLimit` → the fleet node's `slots` (docs/design.md D31), pure. llama-swap
 * answers 429 past its limit; svc's gateway queues past the node's slots instead.
 */

/**
 * llama-swap's `concurrencyLimit`: requests in flight at once, 0 (its default) leaving the
 * engine's own count; a positive one is the node's `slots` (docs/design.md D31).
 */
export function slotsOf(value: unknown, bad: () => void): number | undefined {
  if (value === undefined || value === 0) {
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    bad();
    return undefined;
  }
  return value;
}
