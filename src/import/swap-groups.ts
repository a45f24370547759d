/**
 * llama-swap's swapping → svc groups (docs/design.md D26). llama-swap runs one model of a `swap:
 * true` group at a time, and puts every model no group names into a default group that swaps; an
 * svc group of `max: 1` does the same. A `swap: false` group runs its members together, which svc
 * does without a group. What svc groups cannot do is listed: an `exclusive` group stops the
 * other groups' models when one of its own starts (svc groups never stop each other's members),
 * and a `matrix` of sets that may run together is reduced to one model at a time. Pure.
 */
import type { ConfigYaml } from './config-yaml.ts';
import { type NotCarried, unknownKey } from './not-carried.ts';

export interface GroupPlan {
  /** svc group name → max running members. */
  readonly groups: ReadonlyMap<string, number>;
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
  const groups = new Map<string, number>();
  const groupOf = new Map<string, string>();
  const losses: NotCarried[] = [];
  const oneAtATime = (name: string, members: readonly string[]): void => {
    const running = members.filter((id) => imported.includes(id));
    // A group of one member limits nothing, so none is written.
    if (running.length > 1) {
      groups.set(name, 1);
      for (const id of running) {
        groupOf.set(id, name);
      }
    }
  };

  if (config['matrix'] !== undefined) {
    oneAtATime('default', imported);
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
  for (const group of all) {
    if (group.swap) {
      oneAtATime(group.name, group.members);
    }
  }
  const running = all.filter((group) => group.members.some((id) => imported.includes(id)));
  for (const group of running) {
    if (group.exclusive && running.length > 1) {
      losses.push({
        what: declared.includes(group)
          ? `groups.${group.name}.exclusive`
          : 'the models in no group (llama-swap runs them as an exclusive group)',
        why: "not carried yet: a fleet-file group's exclusive: true will carry it (until then svc groups never stop each other's members)",
      });
    }
  }
  for (const group of declared.filter((entry) => entry.persistent === true)) {
    losses.push({
      what: `groups.${group.name}.persistent`,
      why: "not carried yet: a fleet-file group's persistent: true will carry it",
    });
  }
  return { groups, groupOf, losses };
}
