/** How `svc fleet logs` tells several nodes' lines apart. */

/** `node | line` when several nodes are shown, names padded to one width; the bare line for one. */
export function prefixer(names: readonly string[]): (node: string, line: string) => string {
  if (names.length <= 1) {
    return (_node, line) => line;
  }
  const width = Math.max(...names.map((name) => name.length));
  return (node, line) => `${node.padEnd(width)} | ${line}`;
}
