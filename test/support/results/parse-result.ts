/** Helpers for parsers that return a Result (every problem at once) instead of throwing. */
import type { Result } from '../../../src/core/project/diagnostics.ts';

export interface ParseHelpers<T> {
  /** The parsed value; fails the test, listing the problems, when the text is refused. */
  readonly parsed: (text: string, source?: string) => T;
  /** The problems; fails the test when the text parses. */
  readonly problems: (text: string, source?: string) => string[];
}

/** `parsed` and `problems` for `parse`, naming the input as `what` ("the Svcfile") in failures. */
export function parseHelpers<T>(
  parse: (text: string, source: string) => Result<T>,
  what: string,
  defaultSource: string,
): ParseHelpers<T> {
  return {
    parsed: (text, source = defaultSource) => {
      const result = parse(text, source);
      if (!result.ok) {
        throw new Error(`expected ${what} to parse, got:\n${result.problems.join('\n')}`);
      }
      return result.value;
    },
    problems: (text, source = defaultSource) => {
      const result = parse(text, source);
      if (result.ok) {
        throw new Error(`expected ${what} to be refused:\n${text}`);
      }
      return result.problems;
    },
  };
}
