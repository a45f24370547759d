/**
 * The fleet file's `variants: {"<name>": {model, set, strip}}` (docs/design.md D31): a further
 * listed name whose requests go where `model` goes, with the variant's `set` and `strip` applied
 * after the node's `params`. Pure: the raw section and the parsed nodes in, the variants and
 * problems out. Whether `model` names a served name is known only once the nodes' sources are read
 * (the gateway checks it at start); here it is refused when it names another variant, and a
 * variant's own name is refused when a node already claims it as an alias.
 */
import { isRecord } from './node-fields.ts';
import { type NodeNames, type RequestParams, requestParamsOf } from './node-names.ts';
import type { Problem } from './scheduling-values.ts';

export interface FleetVariant extends RequestParams {
  readonly name: string;
  /** The served name or alias whose node answers the variant. */
  readonly model: string;
}

export function variantsOf(
  raw: unknown,
  nodes: readonly (NodeNames & { readonly name: string })[],
  problem: Problem,
): FleetVariant[] | undefined {
  if (raw === undefined) {
    return undefined;
  }
  if (!isRecord(raw)) {
    problem('variants must map each variant name to {model, set, strip}');
    return undefined;
  }
  const aliasOwner = new Map<string, string>();
  for (const node of nodes) {
    for (const alias of node.aliases ?? []) {
      aliasOwner.set(alias, node.name);
    }
  }
  const variants: FleetVariant[] = [];
  for (const [name, body] of Object.entries(raw)) {
    const place = `variants "${name}"`;
    if (!isRecord(body)) {
      problem(`${place} must be a mapping with model, and set and/or strip`);
      continue;
    }
    const model = body['model'];
    if (typeof model !== 'string' || model === '') {
      problem(`${place} names no model: give the served name or alias its requests go to`);
      continue;
    }
    const owner = aliasOwner.get(name);
    if (owner !== undefined) {
      problem(
        `${place}: node "${owner}" already has the alias "${name}"; give the variant another name`,
      );
      continue;
    }
    if (Object.hasOwn(raw, model)) {
      problem(
        `${place}: model "${model}" is a variant itself; name the served name or alias it builds on`,
      );
      continue;
    }
    variants.push({ name, model, ...requestParamsOf(body['set'], body['strip'], place, problem) });
  }
  return variants;
}
