/**
 * What the scheduler would do with a request for a model now (docs/design.md D33 `GET
 * /v1/fleet/route`), pure and read-only: the same arrival (arrival.ts) and plan (wakes.ts) an
 * `arrive` applies, over the same books, with each node's verdict and why. Asking changes nothing:
 * no request is queued, no node is woken or stopped.
 *
 * Actions: `serve` (a ready node has a free slot), `queue` (every ready node is full, or its group
 * is held: the request waits), `wake` (a node is started for it, or is already coming), `swap` (a
 * group member is stopped first, or every clashing member of an exclusive group's start,
 * docs/design.md D31: `stops` names them), `refuse` (`refusal` gives the scheduler's
 * reason), `fallback` (to the model's upstream fallback, docs/design.md D30; route-upstream.ts).
 */
import type { Ledger } from './ledger.ts';
import { holder } from './nodes/groups.ts';
import { comingFor, type NodeRecord, readyFor, wakeableFor } from './nodes/nodes.ts';
import { type Plan, planFor } from './nodes/wakes.ts';
import { holdText } from './refusal-text.ts';
import { arrivalOf } from './requests/arrival.ts';
import { hasFreeSlot } from './requests/slots.ts';
import { dispatchTold, upstreamVerdict } from './route-upstream.ts';
import type { NodeCondition, RejectReason } from './types.ts';

export type RouteAction = 'serve' | 'queue' | 'wake' | 'swap' | 'fallback' | 'refuse';

/**
 * One node's part: `serve`, `wake`, `stop` for the node the action names; `ready` (serves it with
 * a free slot, ranked after the chosen one), `full` (serves it, no free slot), `loading`,
 * `waking`, `candidate` (could be woken, not first), `holds` (holds the group the request needs),
 * `stopping`, `failed` (its wake failed in this wait), `wake-off`, `unusable` (its engine cannot
 * be reached from here), `unreachable`, `unknown` (not yet answered), `other` (another model).
 */
export type RouteVerdict =
  | 'serve'
  | 'wake'
  | 'stop'
  | 'ready'
  | 'full'
  | 'loading'
  | 'waking'
  | 'candidate'
  | 'holds'
  | 'stopping'
  | 'failed'
  | 'wake-off'
  | 'unusable'
  | 'unreachable'
  | 'unknown'
  | 'other';

export interface NodeVerdict {
  readonly name: string;
  readonly verdict: RouteVerdict;
  readonly reason: string;
  /** Its state as last seen (`unknown` before its first answer). */
  readonly state: NodeCondition | 'unknown';
}

export interface RouteDecision {
  readonly model: string;
  readonly action: RouteAction;
  /** The node served on, woken (or coming), or made room for; absent for a queue or refusal. */
  readonly node?: string;
  /** Nodes stopped first (a swap). */
  readonly stops: readonly string[];
  readonly nodes: readonly NodeVerdict[];
  /** One sentence: why. */
  readonly reason: string;
  /** The scheduler's reason, when refused. */
  readonly refusal?: RejectReason;
  readonly retryAfterSeconds?: number;
  /** Requests already waiting for the model here. */
  readonly queued: number;
}

interface Chosen {
  readonly action: RouteAction;
  readonly node?: string;
  readonly stops: readonly string[];
  readonly reason: string;
  readonly refusal?: RejectReason;
  readonly retryAfterSeconds?: number;
  readonly wakes?: string;
}

function fromPlan(plan: Plan, model: string): Chosen {
  switch (plan.kind) {
    case 'serving':
      return {
        action: 'queue',
        stops: [],
        reason: `every node serving ${model} is full: the request waits for a free slot`,
      };
    case 'coming':
      return {
        action: 'wake',
        node: plan.node,
        stops: [],
        reason: `"${plan.node}" is coming up with ${model}: the request waits for it`,
      };
    case 'wake':
      return {
        action: 'wake',
        node: plan.node.settings.name,
        stops: [],
        reason: `nothing serves ${model} now: "${plan.node.settings.name}" is started for it`,
      };
    case 'swap': {
      const stops = plan.victims.map((victim) => victim.settings.name);
      const why =
        plan.exclusive === true
          ? `group "${plan.group}" may not run beside the others' members (exclusive)`
          : `group "${plan.group}" is full`;
      return {
        action: 'swap',
        node: plan.node.settings.name,
        stops,
        reason: `${why}: ${stops.map((stop) => `"${stop}"`).join(', ')} ${stops.length === 1 ? 'is' : 'are'} stopped, then "${plan.node.settings.name}" started`,
      };
    }
    case 'blocked':
      return {
        action: 'queue',
        stops: [],
        reason: `group "${plan.group}" is full${plan.hold === undefined ? '' : ` and held by "${plan.hold.holder}": ${holdText(plan.hold)}`}; the request waits, up to the wake timeout`,
      };
    case 'failed':
      return {
        action: 'refuse',
        stops: [],
        refusal: 'wake_failed',
        reason: `every wake for ${model} failed: ${plan.failures.map((failure) => `"${failure.node}": ${failure.detail}`).join('; ')}`,
      };
    case 'none':
      return { action: 'refuse', stops: [], refusal: 'no_node', reason: noNodeText(model) };
  }
}

function noNodeText(model: string): string {
  return `no node serves ${model} now and none may be woken for it`;
}

function chosenOf(books: Ledger, model: string, now: number): Chosen {
  const arrival = arrivalOf(books, books.settings.prefer, { model }, now);
  switch (arrival.kind) {
    case 'dispatch':
      return dispatchTold(books, model, arrival, now);
    case 'refuse':
      // A route is asked with every right: `wake_not_allowed` (docs/design.md D29) is no answer
      // here.
      return arrival.reason !== 'queue_full'
        ? { action: 'refuse', stops: [], refusal: 'no_node', reason: noNodeText(model) }
        : {
            action: 'refuse',
            stops: [],
            refusal: 'queue_full',
            retryAfterSeconds: arrival.retryAfterSeconds,
            reason: `the queue for ${model} is full (queue.max ${books.limits(model).max})`,
          };
    case 'queue': {
      // The plan the step after the arrival makes: from when the oldest waiting began to.
      const head = books.queue.head(model);
      const since = head?.enqueuedAt ?? now;
      return fromPlan(planFor(books.context(now, head), model, since), model);
    }
  }
}

/** The group a member holds against the request, and why it cannot go, for its verdict. */
function heldText(books: Ledger, record: NodeRecord, now: number): string | undefined {
  const group = books.groupOf(record);
  if (group === undefined) {
    return undefined;
  }
  const held = holder(group, (member) => books.queuedFor(member), now);
  return held?.holder === record.settings.name
    ? `holds group "${group.name}": ${holdText(held)}`
    : undefined;
}

function verdictOf(
  books: Ledger,
  record: NodeRecord,
  model: string,
  chosen: Chosen,
  now: number,
): Omit<NodeVerdict, 'name' | 'state'> {
  const name = record.settings.name;
  const view = record.view;
  if (chosen.stops.includes(name)) {
    const starts = chosen.node === undefined ? undefined : books.byName.get(chosen.node);
    return {
      verdict: 'stop',
      reason:
        starts?.settings.group === record.settings.group
          ? `stopped to make room in group "${record.settings.group ?? ''}"`
          : `stopped first: group "${record.settings.group ?? ''}" may not run beside "${chosen.node ?? ''}" (exclusive)`,
    };
  }
  const upstream = upstreamVerdict(books, record, model, chosen);
  if (upstream !== undefined) {
    return upstream;
  }
  if (chosen.node === name && chosen.action === 'serve') {
    return { verdict: 'serve', reason: `serves ${model} with a free slot` };
  }
  if (chosen.node === name && (chosen.action === 'wake' || chosen.action === 'swap')) {
    if (record.stopping !== undefined) {
      return {
        verdict: 'stopping',
        reason: `being stopped (${record.stopping.reason}); woken for ${model} once the stop ends`,
      };
    }
    if (record.waking !== undefined) {
      return { verdict: 'waking', reason: `being woken for ${record.waking.model}` };
    }
    return comingFor(record, model)
      ? { verdict: 'loading', reason: `loading ${model}` }
      : { verdict: 'wake', reason: `stopped; a wake starts ${model}` };
  }
  if (record.stopping !== undefined) {
    return { verdict: 'stopping', reason: `being stopped (${record.stopping.reason})` };
  }
  if (view === undefined) {
    return { verdict: 'unknown', reason: 'has not answered yet' };
  }
  if (view.state === 'unreachable') {
    return { verdict: 'unreachable', reason: view.detail ?? 'did not answer' };
  }
  if (readyFor(record, model)) {
    return hasFreeSlot(record)
      ? { verdict: 'ready', reason: `serves ${model} with a free slot; ranked after another` }
      : {
          verdict: 'full',
          reason: `serves ${model}; all ${String(record.slots ?? 0)} slots busy (${record.inFlight} ours)`,
        };
  }
  if (comingFor(record, model)) {
    return record.waking === undefined
      ? { verdict: 'loading', reason: `loading ${model}` }
      : { verdict: 'waking', reason: `being woken for ${record.waking.model}` };
  }
  if (view.unusable !== undefined) {
    return { verdict: 'unusable', reason: view.unusable };
  }
  const failure = record.wakeFailure;
  if (failure !== undefined && failure.model === model) {
    return { verdict: 'failed', reason: `its wake failed: ${failure.detail}` };
  }
  if (wakeableFor(record, model)) {
    return { verdict: 'candidate', reason: `stopped; could be woken for ${model}` };
  }
  if ((view.wakeOff ?? []).includes(model)) {
    return {
      verdict: 'wake-off',
      reason: `its source describes ${model}, but waking is off for this node; start it with \`svc fleet start ${name}\``,
    };
  }
  const held = heldText(books, record, now);
  if (held !== undefined) {
    return { verdict: 'holds', reason: held };
  }
  if (view.state === 'running') {
    return {
      verdict: 'other',
      reason: `running ${view.serves[0] ?? 'another model'}, not ${model}`,
    };
  }
  if (view.sourceProblem !== undefined) {
    return { verdict: 'other', reason: view.sourceProblem };
  }
  const describes = view.wakes?.[0] ?? view.wakeOff?.[0];
  return {
    verdict: 'other',
    reason:
      describes === undefined
        ? 'nothing a wake would start is known'
        : `its source describes ${describes}, not ${model}`,
  };
}

export function routeDecision(books: Ledger, model: string, now: number): RouteDecision {
  const chosen = chosenOf(books, model, now);
  return {
    model,
    action: chosen.action,
    ...(chosen.node === undefined ? {} : { node: chosen.node }),
    stops: chosen.stops,
    nodes: books.records.map((record) => ({
      name: record.settings.name,
      ...verdictOf(books, record, model, chosen, now),
      state: record.view?.state ?? 'unknown',
    })),
    reason: chosen.reason,
    ...(chosen.refusal === undefined ? {} : { refusal: chosen.refusal }),
    ...(chosen.retryAfterSeconds === undefined
      ? {}
      : { retryAfterSeconds: chosen.retryAfterSeconds }),
    queued: books.queue.length(model),
  };
}
