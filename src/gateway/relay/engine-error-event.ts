/**
 * An engine's error reply as the SSE event that ends a stream whose headers wake progress had
 * already sent (docs/design.md D19): the engine's own OpenAI-shaped body when it sent one.
 */
import { errorType, sseError } from '../../core/http/gateway-error.ts';

/** The SSE error event for an engine error that arrives after wake progress sent the headers. */
export function engineErrorEvent(status: number, text: string, node: string): string {
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed === 'object' && parsed !== null && 'error' in parsed) {
      return sseError(JSON.stringify(parsed));
    }
  } catch {
    // not JSON: wrapped below
  }
  return sseError(
    JSON.stringify({
      error: {
        message: `the engine on ${node} answered ${status}`,
        type: errorType(status),
        code: 'upstream_error',
      },
    }),
  );
}
