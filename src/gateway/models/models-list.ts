/**
 * The `/v1/models` entries (spec §4.2 rule 1), pure: from the node snapshots and what each
 * stopped, wakeable node would start, one OpenAI Model object per name with `created`,
 * `owned_by` naming the node that serves (or would wake for) it, and an `svc` extension saying
 * whether the model is running, loading or asleep and on which nodes (docs/design.md D23: an
 * optional field OpenAI clients ignore).
 */
import type { FleetVariant } from '../../core/fleet/file/fleet-file.ts';
import { loopbackOnly } from '../../core/fleet/routing/engine-target.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';

export type ModelState = 'running' | 'loading' | 'asleep';

export interface ModelEntry {
  readonly id: string;
  readonly object: 'model';
  /** Unix seconds: when the serving engine started, else when the gateway did. */
  readonly created: number;
  readonly owned_by: string;
  readonly svc: { readonly state: ModelState; readonly nodes: readonly string[] };
}

export interface ModelClock {
  /** Now, in milliseconds. */
  readonly now: number;
  /** When the gateway started, in milliseconds: the `created` of a model nothing runs yet. */
  readonly startedAt: number;
}

/** How many names an unknown-model message lists before it says how many more there are. */
export const LISTED_IN_MESSAGES = 20;

interface Accumulated {
  running: string[];
  loading: string[];
  asleep: string[];
  created?: number;
}

/**
 * Entries in the order running nodes report them, then the wakeable ones; each name once, in the
 * best state any node has it in (running over loading over asleep). A running engine no request
 * can reach (bound to loopback, no engine override) is left out: spec §4.2 rule 1 lists what a
 * request can reach. `wakeable` maps a stopped
 * node's name to the model a wake would start (docs/design.md D14: its ALIAS, else its MODEL).
 * docs/design.md D31: a node's aliases are listed beside its served name, neither when it is
 * `unlisted`; a variant is listed as its model is, in the same state on the same nodes.
 */
export function modelEntries(
  snapshots: readonly NodeSnapshot[],
  wakeable: ReadonlyMap<string, string>,
  clock: ModelClock,
  variants: readonly FleetVariant[] = [],
): ModelEntry[] {
  const byId = new Map<string, Accumulated>();
  const hidden = new Set<string>();
  const shared = (id: string): Accumulated => {
    let found = byId.get(id);
    if (found === undefined) {
      found = { running: [], loading: [], asleep: [] };
      byId.set(id, found);
    }
    return found;
  };
  // One record per name of the node: the served name and each alias answer alike.
  const namesOf = (node: NodeSnapshot['node'], id: string): readonly Accumulated[] => {
    const names = [id, ...(node.aliases ?? [])];
    if (node.unlisted === true) {
      names.forEach((name) => hidden.add(name));
    }
    return names.map(shared);
  };
  const entry = (node: NodeSnapshot['node'], id: string) => {
    const all = namesOf(node, id);
    return {
      push: (into: 'running' | 'loading' | 'asleep', name: string) => {
        all.forEach((found) => found[into].push(name));
      },
      created: (created: number) => {
        all.forEach((found) => {
          found.created ??= created;
        });
      },
    };
  };
  for (const snapshot of snapshots) {
    if (!snapshot.ok || snapshot.status.state !== 'running' || loopbackOnly(snapshot)) {
      continue;
    }
    if (snapshot.node.kind === 'upstream') {
      // docs/design.md D30: an upstream node that answers serves every name it lists.
      for (const id of Object.keys(snapshot.node.models)) {
        entry(snapshot.node, id).push('running', snapshot.node.name);
      }
      continue;
    }
    const id = snapshot.status.servedName ?? snapshot.status.model;
    if (id === undefined) {
      continue;
    }
    const found = entry(snapshot.node, id);
    // docs/design.md D13: a running engine that has not answered its health check yet is loading.
    found.push(snapshot.status.ready === 'not-ready' ? 'loading' : 'running', snapshot.node.name);
    if (snapshot.status.uptimeSeconds !== undefined) {
      found.created(Math.floor(clock.now / 1000) - snapshot.status.uptimeSeconds);
    }
  }
  for (const snapshot of snapshots) {
    const id = wakeable.get(snapshot.node.name);
    if (id !== undefined) {
      entry(snapshot.node, id).push('asleep', snapshot.node.name);
    }
  }
  for (const variant of variants) {
    const target = byId.get(variant.model);
    if (target !== undefined && !byId.has(variant.name)) {
      byId.set(variant.name, target);
      if (hidden.has(variant.model)) {
        hidden.add(variant.name);
      }
    }
  }
  return [...byId].flatMap(([id, found]) => {
    if (hidden.has(id)) {
      return [];
    }
    const [state, nodes]: [ModelState, string[]] =
      found.running.length > 0
        ? ['running', found.running]
        : found.loading.length > 0
          ? ['loading', found.loading]
          : ['asleep', found.asleep];
    const model: ModelEntry = {
      id,
      object: 'model',
      created: found.created ?? Math.floor(clock.startedAt / 1000),
      owned_by: nodes[0] ?? '',
      svc: { state, nodes },
    };
    return [model];
  });
}

/** The names a refusal lists, capped (an unknown-model message stays readable in a terminal). */
export function availableText(entries: readonly ModelEntry[]): string {
  if (entries.length === 0) {
    return 'no model is available: no node is running or may be woken';
  }
  const listed = entries.slice(0, LISTED_IN_MESSAGES).map((model) => model.id);
  const more = entries.length - listed.length;
  return `available models: ${listed.join(', ')}${more > 0 ? ` (and ${more} more)` : ''}`;
}
