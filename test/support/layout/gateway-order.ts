/**
 * The gateway's folders, top to bottom, and the imports that run back up against that order, for
 * the architecture test. A request enters at `http/` and goes one way down: the route table hands
 * it to a handler (control, requests, usage, models, page…), a model request asks the scheduler,
 * which wakes nodes, and the bytes leave through the relay; metrics count it all from the bottom.
 * A folder may import its own files and any folder below it, never one above: what two rooms
 * share lives in the lower one (callers' rights in `callers/`, body reading in `bodies/`).
 */
import { dirname, relative, sep } from 'node:path';

/**
 * Top to bottom. `.` is the gateway's own folder: the command and its wiring (start-gateway.ts)
 * import every room, and no room imports them.
 */
export const GATEWAY_ORDER: readonly string[] = [
  '.',
  // The published description reads the route table; nothing in the gateway reads it.
  'openapi',
  'http',
  'control',
  'requests',
  'names',
  'upstreams',
  'fallbacks',
  'usage',
  'scheduling',
  'wakes',
  'models',
  'history',
  'page',
  'callers',
  'bodies',
  'relay',
  'metrics',
];

/** The folder of `path` under `root`, as GATEWAY_ORDER names it (`.` for the root's own files). */
function roomOf(root: string, path: string): string {
  const folder = relative(root, dirname(path));
  return folder === '' ? '.' : (folder.split(sep)[0] ?? '.');
}

/**
 * Every import under `root` that runs back up (or into a folder the order does not name), as
 * `<file> imports <target>: …`, paths relative to `root`. `graph` maps each module to the modules
 * it imports (import-graph.ts importGraph); imports leaving `root` are not the order's business.
 */
export function gatewayBackEdges(
  graph: ReadonlyMap<string, readonly string[]>,
  root: string,
  order: readonly string[] = GATEWAY_ORDER,
): string[] {
  const rank = new Map(order.map((room, index) => [room, index]));
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (relative(root, file).startsWith('..')) {
      continue;
    }
    const from = roomOf(root, file);
    for (const target of targets) {
      if (relative(root, target).startsWith('..')) {
        continue;
      }
      const to = roomOf(root, target);
      const edge = `${relative(root, file)} imports ${relative(root, target)}`;
      const fromRank = rank.get(from);
      const toRank = rank.get(to);
      if (fromRank === undefined || toRank === undefined) {
        const unknown = fromRank === undefined ? from : to;
        found.push(`${edge}: ${unknown}/ has no place in the gateway's folder order`);
      } else if (toRank < fromRank) {
        found.push(`${edge}: ${to}/ sits above ${from}/, move what both need below ${from}/`);
      }
    }
  }
  return found.sort();
}
