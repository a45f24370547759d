/**
 * The names a fleet's nodes claim, checked when the gateway starts (docs/design.md D31): two nodes
 * may answer to one name (a served name or an alias) only when they serve the same model
 * (replicas), and a variant must build on a name some node answers to. A node's served name is
 * known once its Svcfile is read; a node without one (its daemon decides) claims its aliases alone,
 * and while any node's names are unknown a variant's model is not refused (it may be that node's).
 * Pure: the fleet and what each node's source says in, one problem per clash out.
 */
import { SvcError } from '../../core/errors.ts';
import type { Fleet, FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { type NodeConfig, reportedModelOf } from '../../core/fleet/file/model-name.ts';

/** What a node's source says it serves: the names requests use, and the model behind them. */
export interface SourceNames {
  readonly names: readonly string[];
  readonly model: string;
}

export function nameProblems(
  fleet: Pick<Fleet, 'nodes' | 'variants'>,
  sources: ReadonlyMap<string, SourceNames>,
): string[] {
  const problems: string[] = [];
  const claims = new Map<string, { node: string; model: string | undefined }>();
  for (const node of fleet.nodes) {
    const source = sources.get(node.name);
    const names = new Set([...(source?.names ?? []), ...(node.aliases ?? [])]);
    for (const name of names) {
      const earlier = claims.get(name);
      if (earlier === undefined) {
        claims.set(name, { node: node.name, model: source?.model });
      } else if (
        earlier.model !== undefined &&
        source !== undefined &&
        earlier.model !== source.model
      ) {
        problems.push(
          `nodes "${earlier.node}" and "${node.name}" both answer to "${name}" but do not serve the same model ("${earlier.model}" and "${source.model}"): give one of them another name (only replicas of one model may share a name)`,
        );
      }
    }
  }
  const everyKnown = fleet.nodes.every((node) => sources.has(node.name));
  for (const variant of fleet.variants ?? []) {
    if (claims.has(variant.name)) {
      problems.push(
        `variants "${variant.name}": node "${claims.get(variant.name)?.node ?? ''}" already answers to "${variant.name}"; give the variant another name`,
      );
    } else if (everyKnown && !claims.has(variant.model)) {
      problems.push(
        `variants "${variant.name}": model "${variant.model}" is no node's served name or alias; served names and aliases: ${[...claims.keys()].join(', ')}`,
      );
    }
  }
  return problems;
}

/**
 * The nodes whose sources say what they serve at start. With aliases or variants, every node that
 * names its Svcfile; without, the local nodes alone (docs/design.md D31: two nodes may share a
 * served name only as replicas), since a local node runs exactly its Svcfile, while a daemon or
 * remote node serves what its daemon runs, known only once it answers.
 */
function nodesToRead(fleet: Fleet): readonly FleetNode[] {
  const named =
    fleet.nodes.some((node) => node.aliases !== undefined) || fleet.variants !== undefined;
  const read = fleet.nodes.filter(
    (node) => node.file !== undefined && (named || node.kind === 'local'),
  );
  return named || read.length > 1 ? read : [];
}

/**
 * Refuses the fleet before the gateway listens when its names clash (nameProblems), reading the
 * source of each node nodesToRead picks; an unreadable one is said later, as before.
 */
export async function refuseNameClashes(
  fleet: Fleet,
  source: (node: FleetNode) => Promise<{ readonly config: NodeConfig }>,
): Promise<void> {
  const read = nodesToRead(fleet);
  if (read.length === 0) {
    return;
  }
  const sources = new Map<string, SourceNames>();
  await Promise.all(
    read.map(async (node) => {
      try {
        const { config } = await source(node);
        const model = reportedModelOf(config);
        const names = [config.servedModelName, model].filter(
          (name): name is string => name !== undefined && name !== '',
        );
        sources.set(node.name, { names, model });
      } catch {
        // docs/design.md D27: a broken Svcfile is reported once the gateway listens.
      }
    }),
  );
  const problems = nameProblems(fleet, sources);
  if (problems.length > 0) {
    throw new SvcError(
      'ERR_FLEET',
      problems.map((problem) => `${fleet.path}: ${problem}`).join('\n'),
    );
  }
}
