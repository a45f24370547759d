/**
 * What a request's name changes on its way to a node (docs/design.md D31): a variant routes as its
 * model does; an alias or a variant reaches the engine under the node's served name; a node's
 * `params` and then a variant's `set` and `strip` change the body's top-level keys. Built once per
 * fleet file; a fleet with none of these builds nothing, and a request whose name and node need no
 * change gets no change, so its body passes byte for byte (the hot path).
 */
import type { Fleet, FleetVariant, RequestParams } from '../../core/fleet/file/fleet-file.ts';
import type { FleetView } from '../../core/fleet/state/node-snapshots.ts';
import type { BodyChange } from '../bodies/body-rewrite.ts';

/** The name a node's engine answers to now (its served name, else its model), when known. */
export type ServedNameOf = (node: string) => string | undefined;

/** The served name in a node's last snapshot: what its engine answers to now. */
export function servedNameIn(view: Pick<FleetView, 'fleet' | 'states'>): ServedNameOf {
  const nodes = new Map(view.fleet.nodes.map((node) => [node.name, node]));
  return (name) => {
    const node = nodes.get(name);
    const last = node === undefined ? undefined : view.states.last(node);
    return last?.ok === true ? (last.status.servedName ?? last.status.model) : undefined;
  };
}

/** A node's params, then a variant's, as one change (strip, then set). */
function merged(
  node: RequestParams | undefined,
  variant: RequestParams | undefined,
): RequestParams {
  const own = (params: RequestParams | undefined): RequestParams => ({
    ...(params?.set === undefined ? {} : { set: params.set }),
    ...(params?.strip === undefined ? {} : { strip: params.strip }),
  });
  if (variant === undefined || node === undefined) {
    return own(variant ?? node);
  }
  // The variant's strip comes after the node's set: a key it strips is not set by the node.
  const later = new Set(variant.strip ?? []);
  const set = Object.fromEntries(Object.entries(node.set ?? {}).filter(([key]) => !later.has(key)));
  return {
    strip: [...(node.strip ?? []), ...(variant.strip ?? [])],
    set: { ...set, ...variant.set },
  };
}

export class RequestNames {
  private readonly variants = new Map<string, FleetVariant>();
  private readonly aliases = new Set<string>();
  private readonly params = new Map<string, RequestParams>();

  private constructor(
    fleet: Pick<Fleet, 'nodes' | 'variants'>,
    private readonly servedName: ServedNameOf,
  ) {
    for (const node of fleet.nodes) {
      node.aliases?.forEach((alias) => this.aliases.add(alias));
      if (node.params !== undefined) {
        this.params.set(node.name, node.params);
      }
    }
    for (const variant of fleet.variants ?? []) {
      this.variants.set(variant.name, variant);
    }
  }

  /** None when the fleet file has no alias, params or variant: nothing to look up per request. */
  static of(
    fleet: Pick<Fleet, 'nodes' | 'variants'>,
    servedName: ServedNameOf,
  ): RequestNames | undefined {
    const any =
      (fleet.variants?.length ?? 0) > 0 ||
      fleet.nodes.some((node) => node.aliases !== undefined || node.params !== undefined);
    return any ? new RequestNames(fleet, servedName) : undefined;
  }

  /** The name the scheduler places a request for `model` by: a variant's model, else itself. */
  route(model: string): string {
    return this.variants.get(model)?.model ?? model;
  }

  /** What the body of a request for `model` placed on `node` needs, or none. */
  change(model: string, node: string): BodyChange | undefined {
    const variant = this.variants.get(model);
    const params = this.params.get(node);
    const renamed = variant !== undefined || this.aliases.has(model);
    if (!renamed && params === undefined) {
      return undefined;
    }
    const served = renamed ? this.servedName(node) : undefined;
    return {
      ...merged(params, variant),
      // An engine whose served name is not known yet gets the name the request was placed by.
      ...(renamed ? { model: served ?? variant?.model ?? model } : {}),
    };
  }
}
