/**
 * The gateway's read endpoints as one caller sees them (docs/design.md D29): `/v1/models`,
 * `/v1/models/{id}` and `/v1/fleet` limited to the caller's models (caller-scope.ts), and its
 * usage and the activity (usage-endpoints.ts).
 */
import { modelIdOf } from '../models/model-endpoints.ts';
import { modelEntry, models, type SnapshotReplies, topology } from '../models/snapshot-replies.ts';
import type { CallerUsage } from '../usage/caller-usage.ts';
import { usageEndpoint } from '../usage/usage-endpoints.ts';
import type { Caller } from './caller-rights.ts';
import { checkModelAllowed, scopedFleet, scopedModels } from './caller-scope.ts';

/** The body of a read endpoint for `caller`, or undefined when the request is none of them. */
export async function callerRead(
  deps: SnapshotReplies & { readonly usage?: CallerUsage },
  target: { readonly method: string | undefined; readonly path: string; readonly query: string },
  caller: Caller,
  context: { model?: string },
): Promise<string | undefined> {
  const { method, path } = target;
  if (method !== 'GET') {
    return undefined;
  }
  if (path === '/v1/models') {
    return scopedModels(await models(deps), caller);
  }
  const id = modelIdOf(path);
  if (id !== undefined) {
    context.model = id;
    checkModelAllowed(caller, id);
    return modelEntry(deps, id);
  }
  if (path === '/v1/fleet') {
    return scopedFleet(await topology(deps), caller);
  }
  return deps.usage === undefined ? undefined : usageEndpoint(deps.usage, target, caller);
}
