/** The architecture test's graph sees every kind of import, so a cycle through any of them fails. */
import { describe, expect, it } from 'vitest';

import { describeCycle, importCycles, importGraph, relativeSpecifiers } from './import-graph.ts';

describe('relativeSpecifiers', () => {
  it('finds static, type-only, re-exported and dynamic imports, and skips packages', () => {
    const source = [
      "import { a } from './a.ts';",
      "import type { B } from '../b.ts';",
      "export { c } from './c.ts';",
      "export type * from './d.ts';",
      "const e = () => import('./e.ts');",
      "import { readFile } from 'node:fs/promises';",
      "import { request } from 'undici';",
    ].join('\n');
    expect(relativeSpecifiers(source)).toEqual(['./a.ts', '../b.ts', './c.ts', './d.ts', './e.ts']);
  });
});

describe('importCycles', () => {
  it('names a cycle closed only by a type-only import, in import order', () => {
    const graph = importGraph(
      new Map([
        ['/r/src/commands.ts', "export const load = () => import('./fleet/command.ts');"],
        ['/r/src/fleet/command.ts', "import { run } from './run.ts';"],
        ['/r/src/fleet/run.ts', "import type { CommandIo } from '../commands.ts';"],
        ['/r/src/core/errors.ts', "import type { X } from './x.ts';"],
      ]),
    );
    expect(importCycles(graph).map((cycle) => describeCycle(cycle, '/r'))).toEqual([
      'src/commands.ts → src/fleet/command.ts → src/fleet/run.ts → src/commands.ts',
    ]);
  });

  it('finds every separate cycle and a module importing itself, and none in a tree', () => {
    const graph = new Map([
      ['/a', ['/b']],
      ['/b', ['/a', '/c']],
      ['/c', ['/d']],
      ['/d', ['/c']],
      ['/e', ['/e']],
      ['/f', ['/a']],
    ]);
    expect(importCycles(graph)).toEqual([
      ['/c', '/d', '/c'],
      ['/a', '/b', '/a'],
      ['/e', '/e'],
    ]);
    expect(
      importCycles(
        new Map([
          ['/a', ['/b', '/c']],
          ['/b', ['/c']],
          ['/c', []],
        ]),
      ),
    ).toEqual([]);
  });
});
