/**
 * The import graph of the repository's TypeScript, for the architecture test: every relative
 * specifier a file names (static, type-only, re-export and `import()` alike, as TypeScript's own
 * pre-processor finds them), resolved to the file it names, and the cycles in it. Lint's
 * import/no-cycle skips type-only imports; a cycle through them still ties the modules together.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

import ts from 'typescript';

/** Every file under `dir` (recursively), as absolute paths. */
export function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The relative specifiers a module names, type-only and dynamic imports included. */
export function relativeSpecifiers(source: string): string[] {
  return ts
    .preProcessFile(source, true, true)
    .importedFiles.map((entry) => entry.fileName)
    .filter((specifier) => specifier.startsWith('./') || specifier.startsWith('../'));
}

/** Module → the modules it imports, for `sources` (absolute path → text). */
export function importGraph(sources: ReadonlyMap<string, string>): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const [path, text] of sources) {
    const targets = relativeSpecifiers(text).map((specifier) => resolve(dirname(path), specifier));
    graph.set(
      path,
      targets.filter((target) => sources.has(target)),
    );
  }
  return graph;
}

/**
 * Every cycle's files, one cycle per strongly connected component (Tarjan's algorithm), each
 * listed in import order from its first module and closed by repeating it.
 */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  let next = 0;
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop();
        if (member !== undefined) {
          onStack.delete(member);
          component.push(member);
        }
      } while (member !== undefined && member !== node);
      if (component.length > 1 || (graph.get(node) ?? []).includes(node)) {
        components.push(component);
      }
    }
  };
  for (const node of [...graph.keys()].sort()) {
    if (!index.has(node)) {
      visit(node);
    }
  }
  return components.map((component) => cycleWithin(graph, new Set(component)));
}

/** One cycle through a strongly connected component: a path from its first module back to it. */
function cycleWithin(
  graph: ReadonlyMap<string, readonly string[]>,
  members: Set<string>,
): string[] {
  const [start = ''] = [...members].sort();
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift() ?? '';
    for (const target of graph.get(node) ?? []) {
      if (target === start) {
        const path = [node];
        while (path[0] !== start) {
          path.unshift(previous.get(path[0] ?? '') ?? start);
        }
        return [...path, start];
      }
      if (members.has(target) && !previous.has(target)) {
        previous.set(target, node);
        queue.push(target);
      }
    }
  }
  return [start, start];
}

/** The TypeScript modules under `dirs`, read from disk, by absolute path. */
export function readModules(dirs: readonly string[]): Map<string, string> {
  return new Map(
    dirs
      .flatMap((dir) => filesUnder(dir))
      .filter((path) => path.endsWith('.ts'))
      .map((path) => [path, readFileSync(path, 'utf8')] as const),
  );
}

/** A cycle as a reader follows it: paths relative to `root`, joined by arrows. */
export function describeCycle(cycle: readonly string[], root: string): string {
  return cycle.map((path) => relative(root, path)).join(' → ');
}
