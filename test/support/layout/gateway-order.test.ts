/** The gateway's folder order catches an import back up, and one into a folder it does not name. */
import { describe, expect, it } from 'vitest';

import { gatewayBackEdges } from './gateway-order.ts';
import { importGraph } from './import-graph.ts';

const ORDER = ['.', 'http', 'requests', 'metrics'];

describe('gatewayBackEdges', () => {
  it('lets a folder import itself and any folder below it', () => {
    const graph = importGraph(
      new Map([
        ['/g/start.ts', "import { app } from './http/app.ts';"],
        ['/g/http/app.ts', "import { complete } from '../requests/complete.ts';"],
        ['/g/requests/complete.ts', "import { count } from '../metrics/counts.ts';"],
        ['/g/metrics/counts.ts', "import type { E } from '../../core/errors.ts';"],
        ['/core/errors.ts', ''],
      ]),
    );
    expect(gatewayBackEdges(graph, '/g', ORDER)).toEqual([]);
  });

  it('names the file and the import running back up, type-only and dynamic alike', () => {
    const graph = importGraph(
      new Map([
        ['/g/http/app.ts', "import { complete } from '../requests/complete.ts';"],
        ['/g/requests/complete.ts', "import type { Rights } from '../http/rights.ts';"],
        ['/g/metrics/counts.ts', "const load = () => import('../requests/complete.ts');"],
        ['/g/http/rights.ts', ''],
      ]),
    );
    expect(gatewayBackEdges(graph, '/g', ORDER)).toEqual([
      'metrics/counts.ts imports requests/complete.ts: requests/ sits above metrics/, move what both need below metrics/',
      'requests/complete.ts imports http/rights.ts: http/ sits above requests/, move what both need below requests/',
    ]);
  });

  it('refuses a folder the order does not name, and a room importing the wiring', () => {
    const graph = importGraph(
      new Map([
        ['/g/start.ts', "import { w } from './wakes/wake.ts';"],
        ['/g/wakes/wake.ts', ''],
        ['/g/metrics/counts.ts', "import { s } from '../start.ts';"],
      ]),
    );
    expect(gatewayBackEdges(graph, '/g', ORDER)).toEqual([
      'metrics/counts.ts imports start.ts: ./ sits above metrics/, move what both need below metrics/',
      "start.ts imports wakes/wake.ts: wakes/ has no place in the gateway's folder order",
    ]);
  });
});
