/**
 * A caller's `models` (docs/design.md D29): served names or globs, where `*` stands for any run
 * of characters (none included) and every other character is itself. Pure: the patterns in, one
 * matcher out, built once when the fleet file is read so a request pays one test.
 */

/** Whether a served name is among the patterns; undefined patterns allow every model. */
export type ModelMatcher = (model: string) => boolean;

function escaped(text: string): string {
  return text.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
}

/** One anchored expression for every pattern: `a*` and `b` become `^(?:a.*|b)$`. */
export function modelMatcher(patterns: readonly string[] | undefined): ModelMatcher {
  if (patterns === undefined) {
    return () => true;
  }
  if (patterns.length === 0) {
    return () => false;
  }
  const exact = new Set(patterns.filter((pattern) => !pattern.includes('*')));
  const globs = patterns.filter((pattern) => pattern.includes('*'));
  if (globs.length === 0) {
    return (model) => exact.has(model);
  }
  const expression = new RegExp(
    `^(?:${globs.map((glob) => glob.split('*').map(escaped).join('[\\s\\S]*')).join('|')})$`,
    'u',
  );
  return (model) => exact.has(model) || expression.test(model);
}
