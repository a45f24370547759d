/**
 * Which stopped node a wake would start, decided per node and pure (spec §4.2 rule 5): a node is
 * a candidate when its own source describes the model and its wake is on; among candidates, one
 * whose stored config already matches (warm) goes first, then file order. The gateway's waker
 * and `svc fleet route` both ask this, so the two never disagree.
 */
import type { FleetNode } from '../file/fleet-file.ts';
import { modelNameOf, type NodeConfig, reportedModelOf } from '../file/model-name.ts';

/** What one stopped node is to a wake for a model. */
export type WakeVerdict =
  | { readonly kind: 'candidate'; readonly warm: boolean }
  /** Its source describes another model (named). */
  | { readonly kind: 'other-model'; readonly describes: string }
  /** It describes the model, but its wake (or the file's) is off. */
  | { readonly kind: 'wake-off' };

/** Whether the started engine would answer to `model`: its served name or the id it reports. */
export function describes(config: NodeConfig, model: string): boolean {
  return config.servedModelName === model || reportedModelOf(config) === model;
}

/**
 * One stopped node's verdict: `reportedModel` is what the node reports it last served (its
 * stored config), which makes it warm when it is what the source would start.
 */
export function wakeVerdict(
  node: Pick<FleetNode, 'wake'>,
  reportedModel: string | undefined,
  config: NodeConfig,
  model: string,
): WakeVerdict {
  if (!describes(config, model)) {
    return { kind: 'other-model', describes: modelNameOf(config) };
  }
  if (node.wake === 'off') {
    return { kind: 'wake-off' };
  }
  return { kind: 'candidate', warm: reportedModel === reportedModelOf(config) };
}

/** Candidates in the order a wake tries them: warm ones first, each group in file order. */
export function wakeOrder<T extends { readonly warm: boolean }>(candidates: readonly T[]): T[] {
  return [
    ...candidates.filter((entry) => entry.warm),
    ...candidates.filter((entry) => !entry.warm),
  ];
}
