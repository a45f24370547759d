/**
 * When a request goes to an upstream node (docs/design.md D30), pure: what the fleet's own nodes
 * would do with it (arrival.ts's answer, read as a `LocalOutcome`) and the upstream nodes ready to
 * serve its model in, the choice out. A node of another kind that can serve now is preferred; an
 * upstream node takes a model only upstream nodes serve, or a request the local nodes have no
 * free slot and no queue room for; a request that would wait for a wake goes upstream only through
 * its model's `waking` fallback (the wake still starts); `queueFull` answers instead of 429. A
 * caller without the `upstreams` right (docs/design.md D29) is never sent upstream.
 */
import type { FallbackReason, FleetFallback } from '../../file/fleet-file.ts';

/** What the fleet's own nodes (every kind but upstream) would do with the request now. */
export type LocalOutcome =
  /** One of them takes it now. */
  | 'dispatch'
  /** It waits in the model's queue for a slot on one of them. */
  | 'queue'
  /** It waits for one of them to wake (or to finish loading). */
  | 'wake'
  /** They serve the model but have no free slot and the queue no room: 429 `queue_full`. */
  | 'queueFull'
  /** None of them serves the model or may be woken for it. */
  | 'none'
  /** It would need a wake its caller may not start (docs/design.md D29): 403. */
  | 'wakeRefused';

/** An upstream node that serves the model and is running, in fleet-file order. */
export interface UpstreamCandidate {
  readonly name: string;
  /** It takes another request of ours (its `slots`, if it has any, are not all ours). */
  readonly free: boolean;
}

export interface UpstreamQuestion {
  readonly local: LocalOutcome;
  readonly upstreams: readonly UpstreamCandidate[];
  /** The model's fallback, if the fleet file names one. */
  readonly fallback?: FleetFallback;
  /** docs/design.md D29 `upstreams: off`: false. */
  readonly mayUseUpstreams: boolean;
}

export type UpstreamChoice =
  /** As the local nodes would have it (arrival.ts): nothing changes. */
  | { readonly kind: 'local' }
  /** Sent to an upstream node serving the model, as to any node. */
  | { readonly kind: 'upstream'; readonly node: string }
  /** Sent to the model's fallback; for `waking`, the wake the local answer asked for still starts. */
  | { readonly kind: 'fallback'; readonly node: string; readonly reason: FallbackReason }
  /** Only upstream nodes serve it and all are full: 429 `queue_full`, as a full queue gets. */
  | { readonly kind: 'full' };

/** The fallback node, when the model has one for `reason` and it takes the request now. */
function fallbackFor(question: UpstreamQuestion, reason: FallbackReason): string | undefined {
  const { fallback, upstreams } = question;
  if (fallback === undefined || !fallback.when.includes(reason)) {
    return undefined;
  }
  return upstreams.some((node) => node.name === fallback.to && node.free) ? fallback.to : undefined;
}

export function upstreamChoice(question: UpstreamQuestion): UpstreamChoice {
  const { local, upstreams } = question;
  if (!question.mayUseUpstreams || local === 'dispatch' || local === 'queue') {
    return { kind: 'local' };
  }
  if (local === 'wake') {
    const to = fallbackFor(question, 'waking');
    return to === undefined ? { kind: 'local' } : { kind: 'fallback', node: to, reason: 'waking' };
  }
  if (local === 'wakeRefused') {
    // The caller may not start the wake, so nothing is woken for it and no fallback stands in.
    return { kind: 'local' };
  }
  if (local === 'queueFull') {
    const to = fallbackFor(question, 'queueFull');
    if (to !== undefined) {
      return { kind: 'fallback', node: to, reason: 'queueFull' };
    }
  }
  const free = upstreams.find((node) => node.free);
  if (free !== undefined) {
    return { kind: 'upstream', node: free.name };
  }
  return local === 'none' && upstreams.length > 0 ? { kind: 'full' } : { kind: 'local' };
}

/** The reason a failed reply is sent once more, to the fallback, or undefined when it is not. */
export function retryOnFailure(
  fallback: FleetFallback | undefined,
  failedNode: string,
  firstByteSent: boolean,
  mayUseUpstreams: boolean,
): string | undefined {
  // docs/design.md D30: never after the first byte (a cut stream stays cut), never twice, and
  // never from the fallback to itself.
  if (
    firstByteSent ||
    !mayUseUpstreams ||
    fallback === undefined ||
    !fallback.when.includes('failed') ||
    fallback.to === failedNode
  ) {
    return undefined;
  }
  return fallback.to;
}
