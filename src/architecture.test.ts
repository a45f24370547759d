/**
 * The layout's rules that lint cannot see (eslint.config.js holds the rest): no import cycle,
 * type-only imports included (import/no-cycle skips them).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import {
  describeCycle,
  importCycles,
  importGraph,
  readModules,
} from '../test/support/import-graph.ts';

const ROOT = join(fileURLToPath(import.meta.url), '../..');

describe('the layout', () => {
  it('has no import cycle in src or test, type-only imports included', () => {
    const graph = importGraph(readModules([join(ROOT, 'src'), join(ROOT, 'test')]));
    expect(graph.size).toBeGreaterThan(100);
    expect(importCycles(graph).map((cycle) => describeCycle(cycle, ROOT))).toEqual([]);
  });
});
