/**
 * The kinds of value the fleet file's scheduling keys take (docs/design.md D25, D26): a switch
 * (`on`/`off`), a flag (`true`/`false`), a duration in the `--wake-timeout` syntax, a whole number in range, and an argv
 * list. Pure: each reader takes the raw YAML value and the key's place (`node "a": idleStop`,
 * `queue.max`), reports one problem naming that place, and returns the value or undefined.
 */
import { parseDuration } from '../../duration.ts';

export type Problem = (message: string) => void;

const DURATION_HINT = 'a duration such as 30s, 5m or 1h';

/** A YAML value as the file wrote it (never undefined here: each reader returns on that first). */
function shown(value: unknown): string {
  return JSON.stringify(value);
}

/** `on` → true, `off` → false (YAML 1.2 keeps both strings; `true` is not a switch). */
export function switchOf(value: unknown, place: string, problem: Problem): boolean | undefined {
  if (value === undefined || value === 'on' || value === 'off') {
    return value === undefined ? undefined : value === 'on';
  }
  problem(`${place} must be "on" or "off", not ${shown(value)}`);
  return undefined;
}

/** `true` or `false` (docs/design.md D31 group flags): a YAML boolean, never `on`/`off`. */
export function flagOf(value: unknown, place: string, problem: Problem): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') {
    return value;
  }
  problem(`${place} must be true or false, not ${shown(value)}`);
  return undefined;
}

/** Milliseconds from `30s`, `5m`, `1h` (core/duration.ts); a bare number lacks its unit. */
export function durationOf(
  value: unknown,
  place: string,
  problem: Problem,
  expected = DURATION_HINT,
): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const ms = typeof value === 'string' ? parseDuration(value) : undefined;
  if (ms === undefined) {
    const unit = typeof value === 'number' && value > 0 ? ` (give its unit, as in ${value}s)` : '';
    problem(`${place} must be ${expected}, not ${shown(value)}${unit}`);
  }
  return ms;
}

/** A written zero (`0s`, `0m`): meaningful where "none" is, as a group's minimum residency. */
export function isZeroDuration(value: unknown): boolean {
  return typeof value === 'string' && /^0+(\.0+)?(ms|s|m|h)$/.test(value);
}

/** `idleStop`: a duration, or `off` (docs/design.md D26). */
export function idleStopOf(
  value: unknown,
  place: string,
  problem: Problem,
): number | 'off' | undefined {
  if (value === 'off') {
    return 'off';
  }
  return durationOf(value, place, problem, `${DURATION_HINT}, or "off"`);
}

/** A whole number of at least `least` (`queue.max` ≥ 0, a group's `max` ≥ 1). */
export function countOf(
  value: unknown,
  place: string,
  least: number,
  problem: Problem,
): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= least) {
    return value;
  }
  problem(`${place} must be a whole number of ${least} or more, not ${shown(value)}`);
  return undefined;
}

/**
 * `wakeCommand`, `sleepCommand` (docs/design.md D26): run without a shell, so only a list of
 * strings says where one argument ends; a string would have to be split by rules the user cannot
 * see.
 */
export function argvOf(
  value: unknown,
  place: string,
  problem: Problem,
): readonly string[] | undefined {
  if (value === undefined) {
    return undefined;
  }
  const example = 'as in [wakeonlan, "aa:bb:cc:dd:ee:ff"]';
  if (!Array.isArray(value) || value.length === 0) {
    const what = typeof value === 'string' ? 'a shell string' : shown(value);
    problem(
      `${place} must be a non-empty argv list of strings, ${example}, not ${what}: it runs without a shell`,
    );
    return undefined;
  }
  const items: unknown[] = value;
  const bad = items.findIndex((item) => typeof item !== 'string');
  if (bad >= 0) {
    problem(
      `${place} must be an argv list of strings: item ${bad + 1} is ${shown(items[bad])} (quote it)`,
    );
    return undefined;
  }
  if (items[0] === '') {
    problem(`${place} must name a program as its first item, not ""`);
    return undefined;
  }
  return items as string[];
}
