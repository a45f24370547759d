/**
 * What an arriving request gets (arrival.ts decides it; upstream-arrival.ts may send it upstream
 * instead, docs/design.md D30): its own file so both read it without importing each other.
 */
import type { FallbackReason } from '../../file/fleet-file.ts';
import type { NodeRecord } from '../nodes/nodes.ts';

export type Arrival =
  /** docs/design.md D30 `fallback`: sent to the model's fallback, and why. */
  | { readonly kind: 'dispatch'; readonly node: NodeRecord; readonly fallback?: FallbackReason }
  /** Waits for a slot on a node serving the model, or for a node to wake (or load) for it. */
  | { readonly kind: 'queue'; readonly waitsFor: 'slot' | 'wake' }
  | { readonly kind: 'refuse'; readonly reason: 'no_node' }
  /** docs/design.md D29: its caller may not wake the node serving it would start. */
  | { readonly kind: 'refuse'; readonly reason: 'wake_not_allowed'; readonly node: string }
  | { readonly kind: 'refuse'; readonly reason: 'queue_full'; readonly retryAfterSeconds: number };
