/**
 * One model-addressed request (spec §4.2 rules 2–5, docs/design.md D25): read the body, find its
 * model (a JSON body's, or a multipart form's `model` field: form-body.ts), have the scheduler place it from the kept snapshots (at once, or after a wait for a slot
 * or a wake, with progress for streams), and proxy. The reply headers say where it went and how
 * long the gateway, the wait and a wake took.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

import { affinityKey } from '../../core/fleet/scheduling/requests/affinity-key.ts';
import type { CallerShare, RequestInfo } from '../../core/fleet/scheduling/types.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { rewriteBody } from '../bodies/body-rewrite.ts';
import { readForm, wholeForm } from '../bodies/form-body.ts';
import { formBoundary } from '../bodies/multipart-model.ts';
import { modelRequestOf } from '../bodies/request-target.ts';
import type { Caller } from '../callers/caller-rights.ts';
import { checkModelAllowed } from '../callers/caller-scope.ts';
import { relayWithFailover } from '../fallbacks/failed-retry.ts';
import type { GatewayMetrics, RequestFacts } from '../metrics/gateway-metrics.ts';
import type { RequestNames } from '../names/request-names.ts';
import type { GatewayScheduler } from '../scheduling/gateway-scheduler.ts';
import { type Admission, type DispatchAction, Refused } from '../scheduling/loop-contract.ts';
import type { ReplyTail } from '../usage/reply-usage.ts';
import { nodeRelay } from './node-relay.ts';
import { waitForPlace } from './wait-for-place.ts';

const MAX_BODY_BYTES = 32 * 1024 * 1024;

/** What a model request needs of the gateway. */
export interface CompleteDeps {
  readonly scheduling: GatewayScheduler;
  /** How long a non-streamed reply may take (--reply-timeout). */
  readonly replyTimeoutMs: number;
  /** Counts the requests held for a slot, a waking or a loading node. */
  readonly metrics: Pick<
    GatewayMetrics,
    'waitStarted' | 'waitEnded' | 'fellBack' | 'upstreamFailed'
  >;
  /** Aliases, variants and params (docs/design.md D31); none when the fleet file has none. */
  readonly names?: RequestNames;
}

/** What one request's log line says beyond method and path (never a body or a header). */
export interface RequestContext extends RequestFacts {
  /** performance.now() when the request arrived, and the socket's bytes written before it. */
  startedAt?: number;
  bytesBefore?: number;
  model?: string;
  node?: string;
  /** Who asked (docs/design.md D29); set once the token is checked. */
  caller?: Caller;
  /** docs/design.md D29 usage and activity: the queue wait, and the reply's tail for its usage. */
  queueMs?: number;
  tail?: ReplyTail;
  /** Wake progress sent the headers: a later failure becomes an SSE error event. */
  progressSent?: boolean;
  repliedAt?: number;
  upstreamError?: boolean;
}

/**
 * The whole body, from the request's own events: one promise per request rather than an async
 * iterator's per chunk, and no copy when it came in one chunk (a typical completion request).
 */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        request.off('data', onData);
        request.off('end', onEnd);
        reject(new GatewayError(413, `the request body is larger than ${MAX_BODY_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      request.off('error', reject);
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    request.on('data', onData);
    request.once('end', onEnd);
    request.once('error', reject);
  });
}

/**
 * What the scheduler is told of an arrival, built once: no spread per request on the hot path.
 * docs/design.md D29: a caller without `wake` is refused where serving would start a node, one
 * without `upstreams` never goes to an upstream node or a fallback, and its share is plain data.
 */
function admissionOf(
  model: string,
  streaming: boolean,
  affinity: string | undefined,
  caller: Caller | undefined,
): Omit<RequestInfo, 'id'> {
  const request: {
    model: string;
    streaming: boolean;
    affinity?: string;
    mayWake?: false;
    mayUseUpstreams?: false;
    caller?: CallerShare;
  } = { model, streaming };
  if (affinity !== undefined) {
    request.affinity = affinity;
  }
  if (caller !== undefined) {
    if (!caller.wake) {
      request.mayWake = false;
    }
    if (!caller.upstreams) {
      request.mayUseUpstreams = false;
    }
    if (caller.share !== undefined) {
      request.caller = caller.share;
    }
  }
  return request;
}

export async function complete(
  deps: CompleteDeps,
  request: IncomingMessage,
  response: ServerResponse,
  context: RequestContext,
): Promise<void> {
  // docs/design.md D31 "Forms": a multipart body is routed by its `model` form field.
  const boundary = formBoundary(request.headers['content-type']);
  const form = boundary === undefined ? undefined : await readForm(request, boundary);
  const body = form?.body ?? (await readBody(request));
  const arrived = performance.now();
  const { model, streaming, prompt } =
    form === undefined ? modelRequestOf(body) : { ...form, streaming: false, prompt: undefined };
  context.model = model;
  checkModelAllowed(context.caller, model);
  // docs/design.md D31: a variant is placed as its model is.
  const route = deps.names === undefined ? model : deps.names.route(model);
  const scheduling = deps.scheduling;
  const affinity =
    scheduling.scheduler.settings.affinity && prompt !== undefined
      ? affinityKey(body, prompt)
      : undefined;
  let admission: Admission;
  try {
    // docs/design.md D33: the scheduler alone decides, from the views it holds (admission.ts).
    const admitted = scheduling.admit(admissionOf(route, streaming, affinity, context.caller));
    admission = admitted instanceof Promise ? await admitted : admitted;
  } catch (error) {
    throw error instanceof Refused ? await scheduling.refusal(error.action) : error;
  }
  let dispatch: DispatchAction;
  let waitMs: number | undefined;
  let woke = false;
  if ('placed' in admission) {
    dispatch = admission.placed;
  } else {
    try {
      const placed = await waitForPlace(
        deps,
        admission,
        response,
        { model: route, streaming },
        context,
      );
      if (placed === undefined) {
        return;
      }
      ({ dispatch, woke } = placed);
      waitMs = dispatch.waitedMs;
    } finally {
      context.progressSent = response.headersSent;
    }
  }
  try {
    // docs/design.md D31: counted in the gateway's own time (Server-Timing), which it is. Only the
    // chosen node's body is renamed: a retry goes to an upstream node, which maps names itself.
    const change = deps.names?.change(model, dispatch.node);
    // docs/design.md D31 "Forms": a form's rest goes on as it arrives, never held here.
    const sent = form?.streamed ?? (change === undefined ? body : rewriteBody(body, change));
    const gatewayMs = performance.now() - arrived - (waitMs ?? 0);
    context.queueMs = waitMs ?? 0;
    const timing = {
      gatewayMs,
      ...(waitMs === undefined ? {} : { queueMs: waitMs }),
      ...(woke && waitMs !== undefined ? { wakeMs: waitMs } : {}),
    };
    const relayTo = nodeRelay(scheduling, {
      incoming: request,
      outgoing: response,
      body,
      sent,
      // docs/design.md D31 "Forms": an upstream node's relay takes a form in one piece.
      ...(form?.streamed === undefined ? {} : { whole: () => wholeForm(form, MAX_BODY_BYTES) }),
      model,
      streaming,
      replyTimeoutMs: deps.replyTimeoutMs,
      timing,
      books: context,
    });
    const fallbacks = scheduling.scheduler.settings.fallbacks;
    if (fallbacks?.has(route) !== true) {
      // docs/design.md D30: without a fallback there is nothing to retry on.
      await relayTo(dispatch.node, dispatch.fallback, false);
      return;
    }
    await relayWithFailover(
      {
        fallbacks,
        fellBack: (name, reason) => deps.metrics.fellBack(name, reason),
        retried: (from, to) => {
          scheduling.loop.moved(admission.id, to);
          deps.metrics.upstreamFailed(from);
        },
      },
      {
        model: route,
        node: dispatch.node,
        ...(dispatch.fallback === undefined ? {} : { fallback: dispatch.fallback }),
        mayUseUpstreams: context.caller?.upstreams !== false,
        outgoing: response,
      },
      relayTo,
    );
  } finally {
    // In flight from dispatch until the relay settles (the scheduler's count, the only one): the
    // reply's end, its failure, or the caller's hang-up (the relay aborts and settles then).
    scheduling.loop.end(admission.id);
  }
}
