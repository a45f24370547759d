/**
 * `svc remote keep <name> <when>`, pure: a duration from now (`2h`, `90m`) or an RFC 3339 time,
 * as the UTC instant the control plane's `retainUntil` takes. A time already past is refused:
 * it would keep nothing.
 */
import { parseDuration } from '../core/duration.ts';
import { SvcError } from '../core/errors.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

export function keepUntil(text: string, now: number): Date {
  const span = parseDuration(text);
  if (span !== undefined) {
    return new Date(now + span);
  }
  if (!RFC3339.test(text) || Number.isNaN(Date.parse(text))) {
    throw new SvcError(
      'ERR_USAGE',
      `"${text}" is neither a duration (2h, 90m) nor an RFC 3339 time (2026-01-31T18:00:00Z)`,
    );
  }
  const when = new Date(Date.parse(text));
  if (when.getTime() <= now) {
    throw new SvcError(
      'ERR_USAGE',
      `${text} is already past: give a later time, or a duration from now (2h, 90m)`,
    );
  }
  return when;
}

/** The form the control plane takes: RFC 3339 UTC to the second. */
export function rfc3339(when: Date): string {
  return when.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
