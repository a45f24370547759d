/**
 * The fleet file's `fallbacks` (docs/design.md D30), pure: per model, the upstream node that
 * answers when its own nodes would make the caller wait for a wake (`waking`), have no queue room
 * (`queueFull`) or failed before the reply's first byte (`failed`). The `to` node must be an
 * upstream node listing the model: anything else is refused naming the model and the node.
 */
import { closestName } from '../../closest-name.ts';
import type { FleetNode } from './fleet-node.ts';
import { isRecord } from './node-fields.ts';

export type FallbackReason = 'waking' | 'queueFull' | 'failed';

export const FALLBACK_REASONS: readonly FallbackReason[] = ['waking', 'queueFull', 'failed'];

export interface FleetFallback {
  /** The upstream node that answers instead. */
  readonly to: string;
  /** When it does; the file's order is kept, every reason when the file names none. */
  readonly when: readonly FallbackReason[];
}

function whenOf(
  value: unknown,
  where: string,
  problem: (message: string) => void,
): FallbackReason[] {
  if (value === undefined) {
    return [...FALLBACK_REASONS];
  }
  const reasons: FallbackReason[] = [];
  const words = Array.isArray(value) ? (value as unknown[]) : [value];
  for (const word of words) {
    const reason = FALLBACK_REASONS.find((known) => known === word);
    if (reason === undefined) {
      const near = typeof word === 'string' ? closestName(word, FALLBACK_REASONS) : undefined;
      problem(
        `${where}: when has ${JSON.stringify(word)}: use ${FALLBACK_REASONS.join(', ')}${near === undefined ? '' : ` (did you mean "${near}"?)`}`,
      );
    } else if (!reasons.includes(reason)) {
      reasons.push(reason);
    }
  }
  if (words.length === 0) {
    problem(
      `${where}: when lists no reason: use any of ${FALLBACK_REASONS.join(', ')}, or leave it out for all three`,
    );
  }
  return reasons;
}

/** `fallbacks` by model, or undefined when the file has none; problems name the model and node. */
export function fallbacksOf(
  value: unknown,
  nodes: readonly FleetNode[],
  problem: (message: string) => void,
): ReadonlyMap<string, FleetFallback> | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (!isRecord(value)) {
    problem('fallbacks must map a model name to {to: <upstream node>, when: [...]}');
    return undefined;
  }
  const fallbacks = new Map<string, FleetFallback>();
  for (const [model, entry] of Object.entries(value)) {
    const where = `fallbacks "${model}"`;
    if (!isRecord(entry) || typeof entry['to'] !== 'string' || entry['to'] === '') {
      problem(`${where} needs to: the upstream node that answers for it`);
      continue;
    }
    const to = entry['to'];
    const node = nodes.find((candidate) => candidate.name === to);
    if (node === undefined) {
      const near = closestName(
        to,
        nodes.map((candidate) => candidate.name),
      );
      problem(
        `${where}: to names node "${to}", which the file does not list${near === undefined ? '' : ` (did you mean "${near}"?)`}`,
      );
      continue;
    }
    if (node.kind !== 'upstream') {
      problem(
        `${where}: to names node "${to}", a ${node.kind} node: a fallback must be an upstream node (kind: upstream)`,
      );
      continue;
    }
    if (!Object.hasOwn(node.models, model)) {
      problem(
        `${where}: to names upstream node "${to}", whose models do not list "${model}": add it there`,
      );
      continue;
    }
    fallbacks.set(model, { to, when: whenOf(entry['when'], where, problem) });
  }
  return fallbacks;
}
