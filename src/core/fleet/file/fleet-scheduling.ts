/**
 * The fleet file's top-level scheduling settings (docs/design.md D25 `queue`, `affinity`,
 * `scaleOut`; docs/design.md D26 `idleStop`, `groups`), and the check that every node's `group` is
 * declared. Pure: the file's mapping and its parsed nodes in, the settings as written and problems
 * naming each key's place out. Defaults are the scheduler's (scheduling/settings.ts), so "unset"
 * stays visible here. A group with more members than its `max` is no problem: that is what a group
 * is for.
 */
import { closestName } from '../../closest-name.ts';
import {
  countOf,
  durationOf,
  flagOf,
  idleStopOf,
  isZeroDuration,
  type Problem,
  switchOf,
} from './scheduling-values.ts';

/**
 * `queue` or one `queue.models` entry, as written; each key left out falls back (docs/design.md
 * D25).
 */
export interface FleetQueueLimits {
  readonly max?: number;
  readonly timeoutMs?: number;
}

export interface FleetQueue extends FleetQueueLimits {
  /** Per-model limits, keyed by the name requests use. */
  readonly models?: ReadonlyMap<string, FleetQueueLimits>;
}

/** One `groups` entry, as written. */
export interface FleetGroup {
  readonly max?: number;
  readonly minResidencyMs?: number;
  /** docs/design.md D31: starting a member first stops every non-persistent other group's. */
  readonly exclusive?: boolean;
  /** docs/design.md D31: never stopped by another group's start. */
  readonly persistent?: boolean;
}

export interface FleetScheduling {
  readonly queue?: FleetQueue;
  /** docs/design.md D25 `affinity` (default on). */
  readonly affinity?: boolean;
  /** docs/design.md D25 fleet-wide `scaleOut` (default off); a node's own wins. */
  readonly scaleOut?: boolean;
  /** docs/design.md D26 fleet-wide `idleStop` (default off); a node's own wins. */
  readonly idleStopMs?: number | 'off';
  readonly groups?: ReadonlyMap<string, FleetGroup>;
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function limitsOf(raw: Record<string, unknown>, place: string, problem: Problem): FleetQueueLimits {
  const max = countOf(raw['max'], `${place}.max`, 0, problem);
  const timeoutMs = durationOf(raw['timeout'], `${place}.timeout`, problem);
  return {
    ...(max === undefined ? {} : { max }),
    ...(timeoutMs === undefined ? {} : { timeoutMs }),
  };
}

function queueOf(value: unknown, problem: Problem): FleetQueue | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!isMapping(value)) {
    problem('queue must be a mapping with max, timeout and/or models');
    return undefined;
  }
  const own = limitsOf(value, 'queue', problem);
  const rawModels = value['models'];
  if (rawModels === undefined) {
    return own;
  }
  if (!isMapping(rawModels)) {
    problem('queue.models must map model names to their own max and/or timeout');
    return own;
  }
  const models = new Map<string, FleetQueueLimits>();
  for (const [model, limits] of Object.entries(rawModels)) {
    const place = `queue.models[${JSON.stringify(model)}]`;
    if (isMapping(limits)) {
      models.set(model, limitsOf(limits, place, problem));
    } else {
      problem(`${place} must be a mapping with max and/or timeout`);
    }
  }
  return { ...own, models };
}

function groupsOf(value: unknown, problem: Problem): ReadonlyMap<string, FleetGroup> | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!isMapping(value)) {
    problem('groups must map group names to their max, minResidency, exclusive and/or persistent');
    return undefined;
  }
  const groups = new Map<string, FleetGroup>();
  for (const [name, raw] of Object.entries(value)) {
    const place = `groups[${JSON.stringify(name)}]`;
    if (!isMapping(raw)) {
      problem(`${place} must be a mapping with max, minResidency, exclusive and/or persistent`);
      continue;
    }
    const max = countOf(raw['max'], `${place}.max`, 1, problem);
    // No residency at all (`0s`) is a choice: a member may be swapped out as soon as it is idle.
    const minResidencyMs = isZeroDuration(raw['minResidency'])
      ? 0
      : durationOf(raw['minResidency'], `${place}.minResidency`, problem);
    const exclusive = flagOf(raw['exclusive'], `${place}.exclusive`, problem);
    const persistent = flagOf(raw['persistent'], `${place}.persistent`, problem);
    groups.set(name, {
      ...(max === undefined ? {} : { max }),
      ...(minResidencyMs === undefined ? {} : { minResidencyMs }),
      ...(exclusive === undefined ? {} : { exclusive }),
      ...(persistent === undefined ? {} : { persistent }),
    });
  }
  return groups;
}

/** Each node's `group` must be declared: a typo would otherwise leave the node ungrouped. */
function checkMembership(
  nodes: readonly { readonly name: string; readonly group?: string }[],
  groups: ReadonlyMap<string, FleetGroup> | undefined,
  problem: Problem,
): void {
  const declared = [...(groups?.keys() ?? [])];
  for (const node of nodes) {
    if (node.group === undefined || groups?.has(node.group) === true) {
      continue;
    }
    const near = closestName(node.group, declared);
    const hint =
      near !== undefined
        ? `did you mean "${near}"?`
        : declared.length > 0
          ? `declared groups: ${declared.join(', ')}`
          : `declare it at the top level, as in groups: {${node.group}: {max: 1}}`;
    problem(`node "${node.name}": group "${node.group}" is not declared under groups: ${hint}`);
  }
}

export function fleetSchedulingOf(
  document: Readonly<Record<string, unknown>>,
  nodes: readonly { readonly name: string; readonly group?: string }[],
  problem: Problem,
): FleetScheduling {
  const queue = queueOf(document['queue'], problem);
  const affinity = switchOf(document['affinity'], 'affinity', problem);
  const scaleOut = switchOf(document['scaleOut'], 'scaleOut', problem);
  const idleStopMs = idleStopOf(document['idleStop'], 'idleStop', problem);
  const groups = groupsOf(document['groups'], problem);
  checkMembership(nodes, groups, problem);
  return {
    ...(queue === undefined ? {} : { queue }),
    ...(affinity === undefined ? {} : { affinity }),
    ...(scaleOut === undefined ? {} : { scaleOut }),
    ...(idleStopMs === undefined ? {} : { idleStopMs }),
    ...(groups === undefined ? {} : { groups }),
  };
}
