/**
 * The layout's rules that lint cannot see (eslint.config.js holds the rest): no import cycle,
 * type-only imports included (import/no-cycle skips them), and no file under src longer than
 * MAX_LINES (sources, tests, the page's scripts and styles alike): one concern a file, split by
 * concern when it grows past that; and no folder of src, test, bench or scripts holding more than
 * MAX_SOURCES source files (tests counted apart): one concern a folder, likewise; and no import
 * inside src/gateway running back up its folder order (gateway-order.ts).
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { oversizedFolders, relativeFiles } from '../test/support/layout/folder-sizes.ts';
import { gatewayBackEdges } from '../test/support/layout/gateway-order.ts';
import {
  describeCycle,
  filesUnder,
  importCycles,
  importGraph,
  readModules,
} from '../test/support/layout/import-graph.ts';

const ROOT = join(fileURLToPath(import.meta.url), '../..');
const MAX_LINES = 300;
const MAX_SOURCES = 25;

/** Lines as an editor shows them: a last line without its newline counts too. */
function lineCount(text: string): number {
  return text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
}

describe('the layout', () => {
  it('has no import cycle in src or test, type-only imports included', () => {
    const graph = importGraph(readModules([join(ROOT, 'src'), join(ROOT, 'test')]));
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph).map((cycle) => describeCycle(cycle, ROOT))).toEqual([]);
  });

  it('has no import inside src/gateway running back up its folder order, tests included', () => {
    const gateway = join(ROOT, 'src/gateway');
    const graph = importGraph(readModules([gateway]));
    expect(graph.size).toBeGreaterThan(100);
    expect(gatewayBackEdges(graph, gateway)).toEqual([]);
  });

  it(`has no file under src over ${MAX_LINES} lines`, () => {
    const long = filesUnder(join(ROOT, 'src'))
      .map((path) => ({
        path: relative(ROOT, path),
        lines: lineCount(readFileSync(path, 'utf8')),
      }))
      .filter((file) => file.lines > MAX_LINES)
      .map((file) => `${file.path} has ${file.lines} lines`)
      .sort();
    expect(long).toEqual([]);
  });

  it(`has no folder over ${MAX_SOURCES} source files, tests counted apart`, () => {
    const files = ['src', 'test', 'bench', 'scripts'].flatMap((dir) =>
      relativeFiles(ROOT, filesUnder(join(ROOT, dir))),
    );
    expect(files.length).toBeGreaterThan(100);
    expect(oversizedFolders(files, MAX_SOURCES)).toEqual([]);
  });
});
