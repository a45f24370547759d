/**
 * Parse and resolve stages return every problem at once instead of throwing on the first
 * (docs/design.md "Shape of the code"); the command turns the list into one user error.
 */
import { type ErrorCode, SvcError } from '../errors.ts';

export type Result<T> =
  { ok: true; value: T } | { ok: false; problems: string[]; code?: ErrorCode };

export function ok<T>(value: T): Result<T> {
  return { ok: true, value };
}

/** A failure; `code` picks the catalog entry when it is more precise than the stage's default. */
export function failed<T>(problems: string[], code?: ErrorCode): Result<T> {
  return code === undefined ? { ok: false, problems } : { ok: false, problems, code };
}

/** The value, or an SvcError listing every problem, one per line. */
export function unwrap<T>(result: Result<T>, code: ErrorCode = 'ERR_PROJECT'): T {
  if (result.ok) {
    return result.value;
  }
  throw new SvcError(result.code ?? code, result.problems.join('\n'));
}
