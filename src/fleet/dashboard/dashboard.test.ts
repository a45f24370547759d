/**
 * The fleet dashboard's pure parts: the layout is exactly the terminal's size whatever the
 * readings, a row per node carries its state, readiness, model and gauges, and the keys map to
 * the actions the footer lists.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

import { displayWidth } from '../../core/view/text.ts';
import { dashboardAction, dashboardFooter, decodeDashboardKeys } from './dashboard-keys.ts';
import { dashboardLayout, type DashboardState } from './dashboard-layout.ts';

const now = new Date('2026-11-23T10:00:00.000Z');

const STATE: DashboardState = {
  fleetPath: '/srv/fleet.yaml',
  nodes: [
    {
      name: 'alpha',
      reading: {
        ok: true,
        stats: {
          state: 'running',
          ready: 'ready',
          servedName: 'tiny',
          lastActiveAt: '2026-11-23T09:59:00.000Z',
          memory: { used: 4, total: 16 },
          // docs/design.md D25, where the node reports them.
          ...{ slots: 2, busy: 1 },
          gpus: [{ index: 0, utilization: 50, memoryUsed: 3, memoryTotal: 4 }],
        },
        rates: { tokensPerSecond: 12.5, requestsPerSecond: 0.5 },
      },
    },
    { name: 'beta', reading: { ok: false, outcome: 'unreachable', detail: 'connection refused' } },
    { name: 'gamma' },
  ],
  selected: 1,
  screen: 'list',
  log: [],
  now,
};

describe('dashboardLayout', () => {
  it('has a row per node with its state, readiness, model, last active, rate and gauges', () => {
    const lines = dashboardLayout(STATE, 120, 12);
    const alpha = lines.find((line) => line.includes('alpha')) ?? '';
    expect(alpha).toMatch(/running\s+ready\s+1\/2\s+tiny\s+1m 0s ago\s+12\.5/);
    expect(alpha).toContain(' 50%');
    expect(alpha).toContain(' 75%');
    expect(lines.find((line) => line.includes('beta'))).toMatch(
      /^> beta\s+unreachable {2}connection refused/,
    );
    expect(lines.find((line) => line.includes('gamma'))).toContain('asking…');
    expect(lines.at(-1)).toContain('s start');
  });

  it('keeps every column on screen when a node that did not answer has a long reason', () => {
    const long = { ok: false as const, outcome: 'config-error', detail: 'why '.repeat(80) };
    const lines = dashboardLayout(
      { ...STATE, nodes: [...STATE.nodes, { name: 'delta', reading: long }] },
      120,
      12,
    );
    expect(lines[2]).toMatch(/NODE +STATE +READY +BUSY +MODEL +LAST ACTIVE +TOK\/S +GPU +MEM/);
    expect(lines.find((line) => line.includes('delta'))).toMatch(/delta +config-error +why why/);
  });

  it("names what waits in the gateway's queue in the title, and nothing when none waits", () => {
    const queued = dashboardLayout({ ...STATE, queued: { gemma: 2, qwen: 1 } }, 120, 12);
    expect(queued[0]).toBe(
      'svc fleet dashboard · /srv/fleet.yaml · queued gemma 2, qwen 1'.padEnd(120),
    );
    expect(dashboardLayout(STATE, 120, 12)[0]).toBe(
      'svc fleet dashboard · /srv/fleet.yaml'.padEnd(120),
    );
  });

  it('shows the selected node metrics above its recent log in the detail screen', () => {
    const lines = dashboardLayout(
      { ...STATE, selected: 0, screen: 'detail', log: ['first line', 'last line'] },
      100,
      20,
    );
    expect(lines[0]).toContain('· alpha');
    expect(lines.some((line) => line.includes('last line'))).toBe(true);
    expect(lines.at(-1)).toContain('esc back');
    expect(lines.at(-1)).not.toContain('enter detail');
  });

  it('property: any state at 1..160 × 1..60 is exactly `rows` lines of exactly `columns`', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 160 }),
        fc.integer({ min: 1, max: 60 }),
        fc.constantFrom<'list' | 'detail'>('list', 'detail'),
        fc.array(fc.string(), { maxLength: 30 }),
        fc.string(),
        (columns, rows, screen, log, name) => {
          const lines = dashboardLayout(
            {
              ...STATE,
              nodes: [...STATE.nodes, { name: `\u001b[31m${name}` }],
              screen,
              log,
            },
            columns,
            rows,
          );
          expect(lines).toHaveLength(rows);
          for (const line of lines) {
            expect(displayWidth(line)).toBe(columns);
            expect(line).not.toContain('\u001b');
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('dashboard keys', () => {
  it('decodes arrows, enter, a lone escape and letters', () => {
    expect(decodeDashboardKeys('\u001b[A\u001b[B\rsxq')).toEqual([
      'up',
      'down',
      'enter',
      's',
      'x',
      'q',
    ]);
    expect(decodeDashboardKeys('\u001b')).toEqual(['esc']);
  });

  it('maps keys to actions only on the screens that list them', () => {
    expect(dashboardAction('enter', 'list')).toEqual({ type: 'detail', open: true });
    expect(dashboardAction('enter', 'detail')).toBeUndefined();
    expect(dashboardAction('esc', 'detail')).toEqual({ type: 'detail', open: false });
    expect(dashboardAction('s', 'detail')).toEqual({ type: 'start' });
    expect(dashboardAction('up', 'list')).toEqual({ type: 'select', by: -1 });
    expect(dashboardFooter('list')).toBe(
      '↑↓ select   enter detail   s start   x stop   f force stop   q quit',
    );
  });

  it('forces a stop only after y confirms it: while it asks, only y, n, esc and q work', () => {
    expect(dashboardAction('f', 'list')).toEqual({ type: 'force-stop' });
    expect(dashboardAction('y', 'list')).toBeUndefined();
    expect(dashboardAction('y', 'confirm')).toEqual({ type: 'confirm' });
    expect(dashboardAction('n', 'confirm')).toEqual({ type: 'cancel' });
    expect(dashboardAction('esc', 'confirm')).toEqual({ type: 'cancel' });
    expect(dashboardAction('x', 'confirm')).toBeUndefined();
    expect(dashboardAction('s', 'confirm')).toBeUndefined();
    expect(dashboardFooter('confirm')).toBe('y yes   n no   q quit');
    expect(decodeDashboardKeys('fYn')).toEqual(['f', 'y', 'n']);
  });
});
