/**
 * The keys a fleet file may use, in one table, and the check that refuses any other (docs/design.md
 * D20: the original ignored unknown keys, so a misspelt `wake: off` silently left waking on and a
 * misspelt `tokenEnv` sent no token). Adding a key to the schema is one line here.
 * Pure: a parsed YAML document in, one problem per unknown key (naming it, its node, its line and
 * the closest known key) out.
 */
import { isMap, isScalar, isSeq, type LineCounter, type Node, type YAMLMap } from 'yaml';

import { closestName } from '../../closest-name.ts';

/**
 * A value with no keys of its own, a mapping of free names (tags), a mapping of known keys, a
 * list of one shape (nodes), or a mapping of free names to one shape (`groups`, `queue.models`).
 */
type Shape =
  | 'value'
  | 'free'
  | { readonly keys: KeyTable }
  | { readonly each: Shape; readonly label?: string }
  | { readonly named: Shape };
type KeyTable = Readonly<Record<string, Shape>>;

const ENGINE_KEYS: KeyTable = { host: 'value', port: 'value', path: 'value' };

// One table for every node kind: which keys a kind may use is its parse branch's rule
// (fleet-node.ts). A `local` node (docs/design.md D27) takes file (required), tags, wake,
// engineTokenEnv and engine.port, and is refused host, port and tokenEnv there.
const NODE_KEYS: KeyTable = {
  name: 'value',
  kind: 'value',
  host: 'value',
  port: 'value',
  tokenEnv: 'value',
  engineTokenEnv: 'value',
  engine: { keys: ENGINE_KEYS },
  file: 'value',
  tags: 'free',
  wake: 'value',
  'instance-type': 'value',
  // docs/design.md D25, D26: the node's own scheduling settings (node-scheduling.ts).
  scaleOut: 'value',
  idleStop: 'value',
  keepWarm: 'value',
  group: 'value',
  wakeCommand: 'value',
  sleepCommand: 'value',
  // docs/design.md D32: the prompt cache kept across stops (node-keep-cache.ts).
  keepCache: 'value',
  keepCacheMax: 'value',
  // docs/design.md D31: further names and request presets (node-names.ts).
  aliases: 'value',
  unlisted: 'value',
  params: { keys: { set: 'free', strip: 'value' } },
  // docs/design.md D30: an upstream node's own keys (fleet-upstream.ts); `models` is a list or a
  // map of served name to the upstream's model id.
  url: 'value',
  apiKeyEnv: 'value',
  models: 'free',
  slots: 'value',
  timeout: 'value',
};

// docs/design.md D29: who may use the gateway (fleet-callers.ts).
const CALLER_KEYS: KeyTable = {
  name: 'value',
  tokenEnv: 'value',
  tokenSha256: 'value',
  models: 'value',
  wake: 'value',
  upstreams: 'value',
  concurrency: 'value',
  priority: 'value',
};

const QUEUE_LIMIT_KEYS: KeyTable = { max: 'value', timeout: 'value' };

export const FLEET_KEYS: KeyTable = {
  nodes: { each: { keys: NODE_KEYS } },
  prefer: 'value',
  wake: 'value',
  concurrency: { keys: { total: 'value', tags: 'free' } },
  gateway: {
    keys: {
      url: 'value',
      tokenEnv: 'value',
      name: 'value',
      cors: 'value',
      operatorTokenEnv: 'value',
    },
  },
  // The engine key variable of remote nodes that name none (spec §4.2 rule 4).
  apiKeyEnv: 'value',
  // docs/design.md D25, D26: fleet-wide scheduling (fleet-scheduling.ts).
  queue: { keys: { ...QUEUE_LIMIT_KEYS, models: { named: { keys: QUEUE_LIMIT_KEYS } } } },
  affinity: 'value',
  scaleOut: 'value',
  idleStop: 'value',
  groups: {
    named: {
      keys: { max: 'value', minResidency: 'value', exclusive: 'value', persistent: 'value' },
    },
  },
  callers: { each: { keys: CALLER_KEYS }, label: 'caller' },
  // docs/design.md D31: further names on another name's node (fleet-variants.ts).
  variants: { named: { keys: { model: 'value', set: 'free', strip: 'value' } } },
  // docs/design.md D30: per model, the upstream node answering instead (fleet-fallbacks.ts).
  fallbacks: { named: { keys: { to: 'value', when: 'value' } } },
};

/**
 * llama-swap's words in a fleet file written by hand, and the svc key that says the same
 * (docs/design.md D31; `svc import llama-swap` translates a whole configuration).
 */
const LLAMA_SWAP_WORDS: Readonly<Record<string, string>> = {
  ttl: 'idleStop (a duration such as 10m)',
  globalTTL: 'idleStop at the top level',
  preload: 'keepWarm: on on the node',
  hooks: 'keepWarm: on on each node to preload',
  swap: 'max: 1 in the group',
  members: 'group: <name> on each node',
  models: 'nodes, one per model, each naming its Svcfile (svc import llama-swap writes them)',
  cmd: 'file: a Svcfile (PROVIDER command runs any program)',
  cmdStop: "STOP in the node's Svcfile",
  checkEndpoint: "HEALTH in the node's Svcfile",
  proxy: "BASEURL in the node's Svcfile",
  startPort: "BASEURL in each Svcfile, or the node's engine.port",
  healthCheckTimeout: 'svc gateway --wake-timeout',
  macros: 'the values written out (a fleet file has no macros)',
};

function keyText(key: unknown): string {
  return isScalar(key) ? String(key.value) : String(key);
}

function nodeName(map: YAMLMap): string | undefined {
  const name = map.get('name', true);
  return isScalar(name) && typeof name.value === 'string' && name.value !== ''
    ? name.value
    : undefined;
}

/** Every unknown key under `root`, as `unknown key "x" in node "n" (line 7): did you mean "y"?`. */
export function unknownKeys(root: Node | null, lines: LineCounter): string[] {
  const problems: string[] = [];
  const visit = (node: unknown, shape: Shape, where: string): void => {
    if (shape === 'value' || shape === 'free') {
      return;
    }
    if ('each' in shape) {
      if (isSeq(node)) {
        node.items.forEach((item, index) => {
          const name = isMap(item) ? nodeName(item) : undefined;
          const label = shape.label ?? 'node';
          visit(
            item,
            shape.each,
            name === undefined ? `${label} ${index + 1}` : `${label} "${name}"`,
          );
        });
      }
      return;
    }
    if (!isMap(node)) {
      return;
    }
    if ('named' in shape) {
      for (const pair of node.items) {
        visit(pair.value, shape.named, `${where} "${keyText(pair.key)}"`);
      }
      return;
    }
    const known = Object.keys(shape.keys);
    for (const pair of node.items) {
      const key = keyText(pair.key);
      const inner = Object.hasOwn(shape.keys, key) ? shape.keys[key] : undefined;
      if (inner !== undefined) {
        visit(pair.value, inner, where === '' ? key : `${where} ${key}`);
        continue;
      }
      const offset = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
      const line = offset === undefined ? '' : ` (line ${lines.linePos(offset).line})`;
      const near = closestName(key, known);
      const llamaSwap = Object.hasOwn(LLAMA_SWAP_WORDS, key) ? LLAMA_SWAP_WORDS[key] : undefined;
      const hint =
        llamaSwap !== undefined
          ? `that is llama-swap's word; svc's is ${llamaSwap}`
          : near === undefined
            ? `known keys here: ${known.join(', ')}`
            : `did you mean "${near}"?`;
      problems.push(`unknown key "${key}"${where === '' ? '' : ` in ${where}`}${line}: ${hint}`);
    }
  };
  visit(root, { keys: FLEET_KEYS }, '');
  return problems;
}
