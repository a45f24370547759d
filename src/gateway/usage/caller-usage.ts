/**
 * What each caller used (docs/design.md D29): per caller and model, requests by status code and
 * prompt, completion and cached tokens from the engine's own report (reply-usage.ts; a reply
 * without one adds the request, not zero tokens), and the last 1,000 requests (activity-ring.ts).
 * Labels are bounded by the fleet file: callers are its names, models the ones it serves (a
 * request for a model nothing serves is counted under its caller with model "").
 */
import type { Registry, RegistryContentType } from 'prom-client';

import { countedElsewhere } from '../../core/metrics/series.ts';
import { ActivityRing, type KeptActivity } from './activity-ring.ts';
import type { ReplyUsage } from './reply-usage.ts';

export interface ModelUsage {
  model: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  /** Requests by status code, as text (`"200"`), for the table. */
  readonly codes: Record<string, number>;
}

/** One request at its end, as the gateway saw it; never a body or a header. */
export interface EndedRequest {
  readonly caller: string;
  readonly model: string;
  readonly node?: string | undefined;
  readonly status: number;
  readonly usage?: ReplyUsage | undefined;
  /** Epoch milliseconds: when it arrived (the activity says it in RFC 3339 when read). */
  readonly atMs: number;
  readonly queueMs?: number | undefined;
  readonly ttfbMs?: number | undefined;
  readonly totalMs: number;
}

export class CallerUsage {
  readonly since: string;
  readonly activity = new ActivityRing();
  private readonly byCaller = new Map<string, Map<string, ModelUsage>>();
  /** Completion tokens per node, for the page's tokens/s (history/fleet-history.ts). */
  private readonly byNode = new Map<string, number>();
  /** Entries some reply reported usage for: only those have token series (as before any usage). */
  private readonly reported = new Set<ModelUsage>();

  /**
   * `registers`: where the Prometheus series go, read from these counts when scraped; none keeps
   * the counts in memory alone.
   */
  constructor(now: Date, registers?: readonly Registry<RegistryContentType>[]) {
    this.since = now.toISOString();
    if (registers !== undefined) {
      countedElsewhere(
        {
          name: 'svc_gateway_caller_requests_total',
          help: 'Model requests by caller (fleet file callers, gateway, operator), model and status code.',
          labelNames: ['caller', 'model', 'code'],
          registers,
        },
        () =>
          this.samples((caller, entry) =>
            Object.entries(entry.codes).map(([code, count]) => [
              [caller, entry.model, code],
              count,
            ]),
          ),
      );
      countedElsewhere(
        {
          name: 'svc_gateway_caller_tokens_total',
          help: "Tokens by caller, model and kind (prompt, completion, cached), from the engine's own usage.",
          labelNames: ['caller', 'model', 'kind'],
          registers,
        },
        () =>
          this.samples((caller, entry) =>
            this.reported.has(entry)
              ? [
                  [[caller, entry.model, 'prompt'], entry.promptTokens],
                  [[caller, entry.model, 'completion'], entry.completionTokens],
                  [[caller, entry.model, 'cached'], entry.cachedTokens],
                ]
              : [],
          ),
      );
    }
  }

  /** Every caller's entries' samples, as `of` gives them for each. */
  private samples(
    of: (caller: string, entry: ModelUsage) => (readonly [string[], number])[],
  ): (readonly [string[], number])[] {
    return [...this.byCaller].flatMap(([caller, models]) =>
      [...models.values()].flatMap((entry) => of(caller, entry)),
    );
  }

  ended(request: EndedRequest): void {
    const { caller, model, status, usage } = request;
    let models = this.byCaller.get(caller);
    if (models === undefined) {
      models = new Map();
      this.byCaller.set(caller, models);
    }
    let entry = models.get(model);
    if (entry === undefined) {
      entry = {
        model,
        requests: 0,
        promptTokens: 0,
        completionTokens: 0,
        cachedTokens: 0,
        codes: {},
      };
      models.set(model, entry);
    }
    const code = String(status);
    entry.requests += 1;
    entry.codes[code] = (entry.codes[code] ?? 0) + 1;
    if (usage !== undefined) {
      entry.promptTokens += usage.promptTokens;
      entry.completionTokens += usage.completionTokens;
      entry.cachedTokens += usage.cachedTokens;
      this.reported.add(entry);
      if (request.node !== undefined) {
        const before = this.byNode.get(request.node) ?? 0;
        this.byNode.set(request.node, before + usage.completionTokens);
      }
    }
    const activity: KeptActivity = {
      atMs: request.atMs,
      caller,
      model,
      node: request.node ?? null,
      status,
      queueMs: request.queueMs ?? 0,
      ttfbMs: request.ttfbMs ?? null,
      totalMs: request.totalMs,
      promptTokens: usage?.promptTokens ?? null,
      completionTokens: usage?.completionTokens ?? null,
      cachedTokens: usage?.cachedTokens ?? null,
    };
    this.activity.add(activity);
  }

  /** Completion tokens the engine of `node` reported for this gateway's requests so far. */
  completionTokensOf(node: string): number {
    return this.byNode.get(node) ?? 0;
  }

  /** `GET /v1/fleet/usage`: every caller, or only `only` (any token but the operator's). */
  reply(only?: string): string {
    const callers = [...this.byCaller]
      .filter(([name]) => only === undefined || name === only)
      .map(([name, models]) => ({
        name,
        models: [...models.values()].map(({ codes, ...counts }) => ({ ...counts, codes })),
      }));
    return JSON.stringify({ since: this.since, callers });
  }
}

/** What the gateway knows of a model request at its end (complete.ts's RequestContext fits). */
export interface RequestTrace {
  readonly caller?: { readonly name: string };
  readonly model?: string;
  readonly node?: string;
  readonly startedAt?: number;
  readonly repliedAt?: number;
  readonly queueMs?: number;
  readonly tail?: { usage(): ReplyUsage | undefined };
}

/** Counts one model request at its end; `ended` is performance.now(), `now` the wall clock. */
export function countRequest(
  usage: CallerUsage,
  trace: RequestTrace,
  status: number,
  ended: number,
  now: number,
): void {
  if (trace.caller === undefined) {
    return;
  }
  const started = trace.startedAt ?? ended;
  // One plain object per request, no spreads: every model request ends here.
  usage.ended({
    caller: trace.caller.name,
    model: trace.model ?? '',
    node: trace.node,
    status,
    usage: trace.tail?.usage(),
    atMs: now - (ended - started),
    queueMs: trace.queueMs === undefined ? undefined : Math.round(trace.queueMs),
    ttfbMs: trace.repliedAt === undefined ? undefined : Math.round(trace.repliedAt - started),
    totalMs: Math.round(ended - started),
  });
}

/**
 * The gateway's usage book: the Prometheus series only when the fleet file has callers, so a
 * fleet without them shows what it did before (docs/design.md D29).
 */
export function gatewayUsage(
  callers: unknown,
  registers: readonly Registry<RegistryContentType>[],
  now: Date = new Date(),
): CallerUsage {
  return new CallerUsage(now, callers === undefined ? undefined : registers);
}
