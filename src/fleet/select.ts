/**
 * Which nodes a fleet command acts on, and what is wrong with a node's own configuration. Pure:
 * the parsed fleet (read leniently, so one node's unset variable is that node's problem, not the
 * whole command's) and the names given in, nodes or a refusal naming the closest node out.
 */
import { closestName } from '../core/closest-name.ts';
import { SvcError } from '../core/errors.ts';
import type { Fleet, FleetNode } from '../core/fleet/file/fleet-file.ts';

export interface Selection {
  readonly names: readonly string[];
  /** `--all` (start, stop): every node; status and the readers take every node when none is named. */
  readonly all?: boolean;
  /** Whether naming no node (and no --all) is an error (start, stop). */
  readonly required?: { readonly verb: string };
}

function nodeList(fleet: Fleet): string {
  return fleet.nodes.map((node) => node.name).join(', ');
}

/** The nodes named, in the order given (each once), or every node; an unknown name is refused. */
export function selectNodes(fleet: Fleet, selection: Selection): FleetNode[] {
  if (
    selection.all === true ||
    (selection.names.length === 0 && selection.required === undefined)
  ) {
    return [...fleet.nodes];
  }
  if (selection.names.length === 0) {
    throw new SvcError(
      'ERR_USAGE',
      `name the nodes to ${selection.required?.verb ?? 'use'}, or pass --all (nodes: ${nodeList(fleet)})`,
    );
  }
  const picked: FleetNode[] = [];
  for (const name of new Set(selection.names)) {
    const node = fleet.nodes.find((candidate) => candidate.name === name);
    if (node === undefined) {
      const near = closestName(
        name,
        fleet.nodes.map((entry) => entry.name),
      );
      throw new SvcError(
        'ERR_USAGE',
        `no node named "${name}" in ${fleet.path}${near === undefined ? '' : `: did you mean "${near}"?`} (nodes: ${nodeList(fleet)})`,
      );
    }
    picked.push(node);
  }
  return picked;
}

/** Why the node cannot be asked anything: its control token's variable is set nowhere. */
export function unreachableByConfig(node: FleetNode, fleet: Fleet): string | undefined {
  // Only a daemon has a control token; a remote node's calls are signed with cloud credentials.
  return node.kind === 'daemon' && node.tokenEnv !== undefined && node.token === undefined
    ? `${node.tokenEnv} is not set (tokenEnv): export it, or put it in the .env beside ${fleet.path}`
    : undefined;
}

/** Problems that leave the node readable but would fail a start or a wake. */
export function startProblems(node: FleetNode, fleet: Fleet): string[] {
  return node.engineTokenEnv !== undefined && node.engineKey === undefined
    ? [
        `${node.engineTokenEnv} is not set (engineTokenEnv): export it, or put it in the .env beside ${fleet.path}`,
      ]
    : [];
}
