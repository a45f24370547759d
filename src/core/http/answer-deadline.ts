/**
 * One call's deadline: an abort after `timeoutMs`, cleared on the answer. Not AbortSignal.timeout:
 * that one lives its whole span whatever happens (with a weak reference for the collector to
 * track), and a fleet's background refresh makes thousands of these calls.
 */
export interface AnswerDeadline {
  readonly signal: AbortSignal;
  /** The call was answered (or failed): the timer goes. */
  clear(): void;
}

export function answerDeadline(timeoutMs: number): AnswerDeadline {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new Error(`no answer within ${String(timeoutMs)} ms`));
  }, timeoutMs);
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}
