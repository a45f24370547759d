/**
 * `GET /v1/models` and `GET /v1/models/{id}` (spec §4.2 rule 1): the snapshots and each stopped
 * node's wakeable model in, the OpenAI list (or one Model object) out. Takes the snapshots as an
 * argument so it does not care how the gateway obtains them.
 */
import type { FleetNode, FleetVariant } from '../../core/fleet/file/fleet-file.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshots.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import { didYouMean, served } from './closest-model.ts';
import { availableText, type ModelClock, modelEntries, type ModelEntry } from './models-list.ts';

/** What a stopped node would start with: its wakeable model, or undefined (wake off, no source). */
export type WakeableModel = (node: FleetNode) => Promise<string | undefined>;

/** The wakeable model of every node that answered and is not running (spec §4.2 rule 1). */
export async function wakeableModels(
  snapshots: readonly NodeSnapshot[],
  wakeableModel: WakeableModel,
): Promise<Map<string, string>> {
  const found = await Promise.all(
    snapshots.map(async (snapshot) =>
      snapshot.ok && snapshot.status.state !== 'running'
        ? ([snapshot.node.name, await wakeableModel(snapshot.node)] as const)
        : undefined,
    ),
  );
  const byNode = new Map<string, string>();
  for (const pair of found) {
    if (pair?.[1] !== undefined) {
      byNode.set(pair[0], pair[1]);
    }
  }
  return byNode;
}

export async function listModels(
  snapshots: readonly NodeSnapshot[],
  wakeableModel: WakeableModel,
  clock: ModelClock,
  variants: readonly FleetVariant[] = [],
): Promise<ModelEntry[]> {
  return modelEntries(snapshots, await wakeableModels(snapshots, wakeableModel), clock, variants);
}

export function modelsReply(entries: readonly ModelEntry[]): string {
  return JSON.stringify({ object: 'list', data: entries });
}

/** The id in `/v1/models/{id}`: everything after the prefix, so `org/repo:Q4` works unescaped. */
export function modelIdOf(path: string): string | undefined {
  const prefix = '/v1/models/';
  if (!path.startsWith(prefix) || path.length === prefix.length) {
    return undefined;
  }
  try {
    return decodeURIComponent(path.slice(prefix.length));
  } catch {
    return path.slice(prefix.length);
  }
}

/** One entry, or the 404 `model_not_found` every other unknown model gets (docs/design.md D19). */
export function modelReply(entries: readonly ModelEntry[], id: string): string {
  const entry = entries.find((candidate) => candidate.id === id);
  if (entry === undefined) {
    const message = `the model "${id}" is not available; ${availableText(entries)}`;
    throw new GatewayError(404, `${didYouMean(id, served(entries))}${message}`, {
      code: 'model_not_found',
    });
  }
  return JSON.stringify(entry);
}
