/**
 * The request slots an engine was started with, read from its own command line (docs/design.md D25:
 * the fallback where the engine does not report its slots). A Svcfile's PARALLEL, a deploy config's
 * `parallel`, a preset's `np` and verbatim serveArgs all end up in the argv, and the engine takes
 * the last value of its slot flag in whichever spelling, so that is the value read here. Pure.
 */
import { ENGINES, type Runner } from './engine-table.ts';

/**
 * Every spelling of one of the engine's flags: its own, and its short aliases (llama.cpp `-np`
 * for `--parallel`, `-c` for `--ctx-size`).
 */
export function flagSpellings(runner: Runner, flag: { flag: string; key: string }): string[] {
  const aliases = Object.entries(ENGINES[runner].dialect.aliases)
    .filter(([, canonical]) => canonical === flag.key)
    .map(([alias]) => `-${alias}`);
  return [flag.flag, ...aliases];
}

/** The value of the last occurrence of any of `flags`, as `--flag value` or `--flag=value`. */
export function lastValue(args: readonly string[], flags: readonly string[]): string | undefined {
  let value: string | undefined;
  args.forEach((arg, index) => {
    for (const flag of flags) {
      if (arg === flag) {
        value = args[index + 1];
      } else if (arg.startsWith(`${flag}=`)) {
        value = arg.slice(flag.length + 1);
      }
    }
  });
  return value;
}

/**
 * The last stated slot count, a whole number ≥ 1; undefined when none is stated or the value is
 * not one (llama.cpp's `-1` means "choose for me", which only the engine itself can tell).
 */
export function configuredSlots(runner: Runner, args: readonly string[]): number | undefined {
  const parallel = ENGINES[runner].parallel;
  if (parallel === undefined) {
    return undefined;
  }
  const text = lastValue(args, flagSpellings(runner, parallel));
  if (text === undefined || !/^\d+$/.test(text)) {
    return undefined;
  }
  const slots = Number(text);
  return Number.isSafeInteger(slots) && slots >= 1 ? slots : undefined;
}
