/**
 * A node's `keepCache: on|off` and `keepCacheMax: <size>` (docs/design.md D32): the prompt cache
 * of its llama.cpp engine kept across idle stops and swaps. It applies to the engines svc
 * supervises, a local node's (the gateway's) and a daemon node's (carried in the deploy config a
 * wake sends); a remote environment runs its engine itself, so it is refused there. Whether the
 * engine is llama.cpp is known once the node's Svcfile is read: a wake of another runner is refused
 * then, naming keepCache. Pure: the node's mapping in, the settings and problems out.
 */
import type { DeployConfig } from '../../contract/deploy-config.ts';
import { DEFAULT_KEEP_CACHE_MAX, parseSize } from '../../engines/keep-cache.ts';
import { type Problem, switchOf } from './scheduling-values.ts';

export interface NodeKeepCache {
  /** docs/design.md D32: save the engine's slots before a graceful stop, restore after a start. */
  readonly keepCache?: boolean;
  /** The slot files kept, as written (`8GiB`); the oldest go first. */
  readonly keepCacheMax?: string;
}

export function nodeKeepCacheOf(
  raw: Readonly<Record<string, unknown>>,
  name: string,
  kind: string,
  problem: Problem,
): NodeKeepCache {
  const at = (key: string): string => `node "${name}": ${key}`;
  const keepCache = switchOf(raw['keepCache'], at('keepCache'), problem);
  const max = raw['keepCacheMax'];
  if (kind === 'remote' && (keepCache !== undefined || max !== undefined)) {
    problem(
      `${at(keepCache === undefined ? 'keepCacheMax' : 'keepCache')} does not apply to a remote environment, which runs its engine itself; keepCache applies to local and daemon nodes`,
    );
    return {};
  }
  if (max !== undefined && parseSize(max) === undefined) {
    problem(
      `${at('keepCacheMax')} must be a size such as ${DEFAULT_KEEP_CACHE_MAX} or 500MB, not ${JSON.stringify(max)}`,
    );
  } else if (max !== undefined && keepCache !== true) {
    problem(`${at('keepCacheMax')} applies only with keepCache: on`);
  }
  return {
    ...(keepCache === undefined ? {} : { keepCache }),
    ...(typeof max === 'string' || typeof max === 'number' ? { keepCacheMax: String(max) } : {}),
  };
}

/** The deploy config a wake of this node sends, with its keepCache. */
export function withKeepCache(config: DeployConfig, node: NodeKeepCache): DeployConfig {
  return node.keepCache === true
    ? {
        ...config,
        keepCache: true,
        ...(node.keepCacheMax === undefined ? {} : { keepCacheMax: node.keepCacheMax }),
      }
    : config;
}
