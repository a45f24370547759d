/**
 * What a caller limited by its `models` sees and may ask for (docs/design.md D29): a model
 * outside them is refused with 403 `model_not_allowed`, and the model lists of `/v1/models` and
 * `/v1/fleet` leave out what it may not use. A caller with every model (the gateway and operator
 * tokens, and callers with no `models`) gets the shared, once-serialised bodies untouched.
 */
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { Caller } from './caller-rights.ts';

/** Throws the 403 a model outside the caller's `models` gets; names the caller, never a token. */
export function checkModelAllowed(caller: Caller | undefined, model: string): void {
  if (caller !== undefined && !caller.allows(model)) {
    throw new GatewayError(
      403,
      `caller "${caller.name}" may not use the model "${model}": it is outside the caller's models in the fleet file`,
      { code: 'model_not_allowed' },
    );
  }
}

/** The `/v1/models` body with only the models the caller may use. */
export function scopedModels(body: string, caller: Caller): string {
  if (!caller.limited) {
    return body;
  }
  const list = JSON.parse(body) as { data: { id: string }[] };
  return JSON.stringify({ ...list, data: list.data.filter((entry) => caller.allows(entry.id)) });
}

interface FleetNodeEntry {
  model?: string;
  servedName?: string;
  wakeableModel?: string;
}

/**
 * The `/v1/fleet` body whose model fields name only allowed models: a running node's `model` and
 * `servedName` (judged by the served name, as `models` are), `wakeableModel`, and `queued`.
 */
export function scopedFleet(body: string, caller: Caller): string {
  if (!caller.limited) {
    return body;
  }
  const fleet = JSON.parse(body) as { nodes: FleetNodeEntry[]; queued?: Record<string, number> };
  for (const node of fleet.nodes) {
    const served = node.servedName ?? node.model;
    if (served !== undefined && !caller.allows(served)) {
      delete node.model;
      delete node.servedName;
    }
    if (node.wakeableModel !== undefined && !caller.allows(node.wakeableModel)) {
      delete node.wakeableModel;
    }
  }
  if (fleet.queued !== undefined) {
    const queued = Object.entries(fleet.queued).filter(([model]) => caller.allows(model));
    if (queued.length === 0) {
      delete fleet.queued;
    } else {
      fleet.queued = Object.fromEntries(queued);
    }
  }
  return JSON.stringify(fleet);
}
