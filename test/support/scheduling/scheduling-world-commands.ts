/**
 * What the simulated world (scheduling-world.ts) is built from and driven by: the fleet it
 * simulates, and the commands a run is made of.
 */
import type { GroupSettings, QueueLimits } from '../../../src/core/fleet/scheduling/types.ts';
import type { NodeSpec } from './simulated-nodes.ts';

export interface WorldSpec {
  readonly nodes: readonly NodeSpec[];
  readonly groups: ReadonlyMap<string, GroupSettings>;
  readonly queue: QueueLimits;
  readonly wakeTimeoutMs: number;
  readonly prefer: 'idle' | 'active';
  readonly affinity: boolean;
  readonly models: readonly string[];
}

export type Command =
  /** `model` indexes the spec's models; a negative one names a model no node describes. */
  | {
      readonly kind: 'arrive';
      readonly model: number;
      readonly streaming: boolean;
      readonly key?: number;
    }
  | { readonly kind: 'end'; readonly pick: number }
  | { readonly kind: 'hang-up'; readonly pick: number }
  | { readonly kind: 'advance'; readonly ms: number }
  /** `lag`: how many refreshes back the delivered one was taken. */
  | { readonly kind: 'refresh'; readonly lag: number }
  | { readonly kind: 'crash'; readonly node: number }
  | { readonly kind: 'others'; readonly node: number; readonly busy: number }
  /** An operator's start of a node (docs/design.md D33), forced or not. */
  | { readonly kind: 'start'; readonly node: number; readonly force: boolean };
