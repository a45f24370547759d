/**
 * What each model the fleet file's nodes serve offers an agent, read from the nodes' own Svcfiles
 * (I/O at this edge; agent-sizing.ts decides): the name requests use for it, its window and output
 * cap, and whether its engine answers chat. A node whose Svcfile cannot be opened adds nothing:
 * its model is offered as the gateway lists it.
 */
import type { Fleet, Variables } from '../core/fleet/file/fleet-file.ts';
import { modelNameOf } from '../core/fleet/file/model-name.ts';
import { openNodeProject } from '../core/fleet/load/load-fleet.ts';
import { deployConfigFromSpec } from '../core/project/deploy-config-from-project.ts';
import { type ModelFacts, projectFacts } from './agent-sizing.ts';

/**
 * The facts per served name. Several nodes serving one name: it chats when any of them does, and
 * its window is the smallest one stated (a request may land on any of them).
 */
export function mergeFacts(
  entries: readonly (readonly [string, ModelFacts])[],
): Map<string, ModelFacts> {
  const merged = new Map<string, ModelFacts>();
  for (const [name, facts] of entries) {
    const seen = merged.get(name);
    if (seen === undefined) {
      merged.set(name, facts);
      continue;
    }
    const narrower =
      facts.limits.context !== undefined &&
      (seen.limits.context === undefined || facts.limits.context < seen.limits.context);
    const limits = narrower
      ? { ...seen.limits, ...facts.limits }
      : { ...facts.limits, ...seen.limits };
    const nonChat =
      seen.nonChat !== undefined && facts.nonChat !== undefined ? seen.nonChat : undefined;
    merged.set(name, nonChat === undefined ? { limits } : { limits, nonChat });
  }
  return merged;
}

export async function fleetModelFacts(
  fleet: Fleet,
  context: { readonly configDir: string; readonly env: Variables },
): Promise<Map<string, ModelFacts>> {
  const entries = await Promise.all(
    fleet.nodes.map(async (node): Promise<[string, ModelFacts] | undefined> => {
      try {
        const { source, opened } = await openNodeProject(fleet, node, context);
        const config = deployConfigFromSpec(opened.spec, source);
        return config.ok ? [modelNameOf(config.value), projectFacts(opened)] : undefined;
      } catch {
        // No readable Svcfile (a remote node's may live elsewhere): nothing known, nothing hidden.
        return undefined;
      }
    }),
  );
  return mergeFacts(entries.filter((entry) => entry !== undefined));
}
