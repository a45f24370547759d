/**
 * llama-swap's swapping → svc groups (docs/design.md D26, D31). llama-swap runs one model of a
 * `swap: true` group at a time, and puts every model no group names into a default group that
 * swaps exclusively; an svc group of `max: 1` does the same. A `swap: false` group runs its members
 * together: a group as large as its members. `exclusive` (llama-swap's default: true) and
 * `persistent` carry as the svc group's own, wherever another group runs beside it (alone, they
 * change nothing, and a group of one swapping member is not written). A `matrix` of sets that may
 * run together is reduced to one model at a time, and listed. Pure.
 */
import type { ConfigYaml } from './config-yaml.ts';
import { type NotCarried, unknownKey } from './not-carried.ts';

/** One svc group as the fleet file gets it. */
export interface PlannedGroup {
  readonly max: number;
  readonly exclusive?: true;
  readonly persistent?: true;
}

export interface GroupPlan {
  /** svc group name → its settings. */
  readonly groups: ReadonlyMap<string, PlannedGroup>;
  /** Model id → its svc group. */
  readonly groupOf: ReadonlyMap<string, string>;
  readonly losses: readonly NotCarried[];
}

interface SwapGroup {
  readonly name: string;
  readonly swap: boolean;
  readonly exclusive: boolean;
  readonly members: readonly string[];
  readonly persistent?: boolean;
}

/** llama-swap's group keys (docs/design.md D31 carries exclusive and persistent). */
const GROUP_KEYS = ['swap', 'exclusive', 'persistent', 'members'];

const TRUE_WORDS = new Set(['true', 'yes', 'on']);
const FALSE_WORDS = new Set(['false', 'no', 'off']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function flagOf(
  value: unknown,
  fallback: boolean,
  where: string,
  problem: (message: string) => void,
): boolean {
  if (value === undefined) {
    return fallback;
  }
  const word = typeof value === 'boolean' ? String(value) : typeof value === 'string' ? value : '';
  if (TRUE_WORDS.has(word.toLowerCase())) {
    return true;
  }
  if (FALSE_WORDS.has(word.toLowerCase())) {
    return false;
  }
  problem(`${where}: expected true or false`);
  return fallback;
}

/** The config's groups as written, each member checked against the models. */
function swapGroups(
  raw: unknown,
  allIds: readonly string[],
  yaml: ConfigYaml,
  problem: (message: string) => void,
  losses: NotCarried[],
): SwapGroup[] {
  if (raw === undefined) {
    return [];
  }
  if (!isRecord(raw)) {
    problem(`${yaml.where(['groups'])}: groups is a mapping of group names to settings`);
    return [];
  }
  const owner = new Map<string, string>();
  return Object.entries(raw).flatMap(([name, group]) => {
    const at = (...path: string[]): string => yaml.where(['groups', name, ...path]);
    if (!isRecord(group) || !Array.isArray(group['members'])) {
      problem(`${at()}: a group needs members: a list of model ids`);
      return [];
    }
    for (const key of Object.keys(group)) {
      if (!GROUP_KEYS.includes(key)) {
        losses.push({ what: `groups.${name}.${key}`, why: unknownKey(key, GROUP_KEYS) });
      }
    }
    const members: string[] = [];
    for (const member of group['members'] as unknown[]) {
      const id = String(member);
      if (!allIds.includes(id)) {
        // llama-swap loads a group naming a model it does not define, so this is no error.
        losses.push({ what: `groups.${name}.members ${id}`, why: 'no model has that id' });
      } else if (owner.has(id)) {
        problem(`${at('members')}: "${id}" is already a member of group "${owner.get(id) ?? ''}"`);
      } else {
        owner.set(id, name);
        members.push(id);
      }
    }
    return [
      {
        name,
        swap: flagOf(group['swap'], true, at('swap'), problem),
        exclusive: flagOf(group['exclusive'], true, at('exclusive'), problem),
        members,
        persistent: flagOf(group['persistent'], false, at('persistent'), problem),
      },
    ];
  });
}

function freeName(wanted: string, taken: ReadonlySet<string>): string {
  let name = wanted;
  for (let index = 2; taken.has(name); index += 1) {
    name = `${wanted}-${index}`;
  }
  return name;
}

export function groupPlan(
  config: Record<string, unknown>,
  allIds: readonly string[],
  imported: readonly string[],
  yaml: ConfigYaml,
  problem: (message: string) => void,
): GroupPlan {
  const groups = new Map<string, PlannedGroup>();
  const groupOf = new Map<string, string>();
  const losses: NotCarried[] = [];
  const place = (name: string, running: readonly string[], settings: PlannedGroup): void => {
    groups.set(name, settings);
    for (const id of running) {
      groupOf.set(id, name);
    }
  };

  if (config['matrix'] !== undefined) {
    if (imported.length > 1) {
      place('default', imported, { max: 1 });
    }
    losses.push({
      what: 'matrix',
      why: 'svc runs one of these models at a time (group "default", max 1): the sets of models that may run together, and their evict costs, have no svc equivalent',
    });
    if (config['groups'] !== undefined) {
      losses.push({ what: 'groups', why: 'llama-swap uses a matrix or groups, never both' });
    }
    return { groups, groupOf, losses };
  }

  const declared = swapGroups(config['groups'], allIds, yaml, problem, losses);
  const grouped = new Set(declared.flatMap((group) => group.members));
  const ungrouped = allIds.filter((id) => !grouped.has(id));
  // llama-swap's own default: the models no group names swap among themselves, exclusively.
  const all: SwapGroup[] = [
    ...declared,
    ...(ungrouped.length > 0
      ? [
          {
            name: freeName('default', new Set(declared.map((group) => group.name))),
            swap: true,
            exclusive: true,
            members: ungrouped,
          },
        ]
      : []),
  ];
  const running = all.filter((group) => group.members.some((id) => imported.includes(id)));
  for (const group of running) {
    const members = group.members.filter((id) => imported.includes(id));
    // Beside no other group, exclusive and persistent change nothing.
    const beside = running.length > 1;
    const flags = {
      ...(beside && group.exclusive ? { exclusive: true as const } : {}),
      ...(beside && group.persistent === true ? { persistent: true as const } : {}),
    };
    if ((group.swap && members.length > 1) || Object.keys(flags).length > 0) {
      place(group.name, members, { max: group.swap ? 1 : members.length, ...flags });
    }
  }
  return { groups, groupOf, losses };
}
