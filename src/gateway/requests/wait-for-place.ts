/**
 * A request that waits for the scheduler to place it (docs/design.md D25: a wake and a queue are
 * one wait): counted as waiting, told its progress when it streams (wait-progress.ts), and taken
 * out of the queue at once when its caller hangs up. Resolves with where it goes, or undefined when
 * the caller left; a refusal is thrown as the reply it gets.
 */
import type { ServerResponse } from 'node:http';

import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import type { GatewayScheduler } from '../scheduling/gateway-scheduler.ts';
import { type DispatchAction, HungUp, Refused } from '../scheduling/loop-contract.ts';
import { withWaitProgress } from './wait-progress.ts';

export interface WaitDeps {
  readonly scheduling: GatewayScheduler;
  readonly metrics: Pick<GatewayMetrics, 'waitStarted' | 'waitEnded'>;
}

export interface Placed {
  readonly dispatch: DispatchAction;
  /** A wake of the node it went to ended while it waited. */
  readonly woke: boolean;
}

export async function waitForPlace(
  deps: WaitDeps,
  waiting: { readonly id: number; readonly waiting: Promise<DispatchAction> },
  response: ServerResponse,
  request: { readonly model: string; readonly streaming: boolean },
  /** The request's log fields: a wait that ends without a dispatch names the node being woken. */
  logged: { node?: string },
): Promise<Placed | undefined> {
  const { scheduling } = deps;
  const since = scheduling.now();
  const hangUp = (): void => scheduling.loop.end(waiting.id);
  response.once('close', hangUp);
  deps.metrics.waitStarted();
  try {
    const dispatch = request.streaming
      ? await withWaitProgress(waiting.waiting, {
          sink: response,
          comment: (waitedMs) => scheduling.progress(waiting.id, request.model, waitedMs),
          headers: () => {
            const node = scheduling.wakingFor(request.model);
            return node === undefined ? {} : { 'x-svc-node': node };
          },
        })
      : await waiting.waiting;
    return { dispatch, woke: scheduling.wokeSince(dispatch.node, since) };
  } catch (error) {
    if (error instanceof HungUp) {
      return undefined;
    }
    throw error instanceof Refused ? await scheduling.refusal(error.action) : error;
  } finally {
    const woken = scheduling.wakingFor(request.model);
    if (logged.node === undefined && woken !== undefined) {
      logged.node = woken;
    }
    response.off('close', hangUp);
    deps.metrics.waitEnded();
  }
}
