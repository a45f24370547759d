/**
 * The simulated world's rules for exclusive and persistent groups (docs/design.md D31), each
 * thrown as a Violation naming it: a member of an exclusive group is never up beside an up member
 * of a non-persistent other group (at its own start, whatever its group; at every start, when the
 * exclusive group is not persistent itself), and a persistent group's member is never stopped for
 * another group's start. "Up" is starting, running or stopping: the engine holds its memory.
 */
import type { GroupSettings } from '../../../src/core/fleet/scheduling/types.ts';
import { type NodeSpec, type SimulatedNode, Violation } from './simulated-nodes.ts';

type Groups = ReadonlyMap<string, GroupSettings>;

/** Whether `a` (exclusive) may not be up beside `b`, from `a`'s side; `atStart`: `a` is starting. */
function clash(a: NodeSpec, b: NodeSpec, groups: Groups, atStart: boolean): boolean {
  const own = a.group === undefined ? undefined : groups.get(a.group);
  const other = b.group === undefined ? undefined : groups.get(b.group);
  if (own === undefined || other === undefined || a.group === b.group) {
    return false;
  }
  return (
    own.exclusive === true && other.persistent !== true && (atStart || own.persistent !== true)
  );
}

/** No up pair breaks the rule; `started`, just started, is held to its own start's rule too. */
export function checkExclusive(
  nodes: readonly SimulatedNode[],
  groups: Groups,
  started?: SimulatedNode,
): void {
  const up = nodes.filter((node) => node.state !== 'stopped');
  for (const a of up) {
    for (const b of up) {
      if (clash(a.spec, b.spec, groups, a === started)) {
        throw new Violation(
          `${a.spec.name} (exclusive group ${a.spec.group ?? ''}) up beside ${b.spec.name} (group ${b.spec.group ?? ''})`,
        );
      }
    }
  }
}

/** Whether `spec` may be up from the start beside those already up (a world that obeys D31). */
export function fitsBeside(spec: NodeSpec, up: readonly NodeSpec[], groups: Groups): boolean {
  return up.every(
    (other) => !clash(spec, other, groups, true) && !clash(other, spec, groups, true),
  );
}

/** A swap stops a persistent group's member only for its own group's start. */
export function checkPersistentStop(
  node: SimulatedNode,
  groups: Groups,
  swapFor: string | undefined,
): void {
  const group = node.spec.group;
  const settings = group === undefined ? undefined : groups.get(group);
  if (settings?.persistent === true && swapFor !== undefined && swapFor !== group) {
    throw new Violation(
      `${node.spec.name} of persistent group ${group ?? ''} stopped for ${swapFor}`,
    );
  }
}
