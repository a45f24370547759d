/**
 * The scheduler's views of stored snapshots (scheduler-views.ts): a node seen to go down (the
 * gateway's own `POST /v1/fleet/nodes/<n>/stop`, whose reply is stored at once) leaves the
 * scheduler's placements at once, even while its source is still being read for what a wake
 * would start; the wake facts known for it go with the view, so a request then wakes it.
 */
import { describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import type { NodeSource } from '../../core/fleet/drivers/node-driver.ts';
import type { Fleet } from '../../core/fleet/file/fleet-file.ts';
import { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../core/fleet/scheduling/settings.ts';
import type { NodeSnapshot } from '../../core/fleet/state/node-snapshot.ts';
import { SchedulerViews } from './scheduler-views.ts';

const node = daemonNode('box');
const SOURCE: NodeSource = {
  source: '/fleet/box.svc',
  config: { runner: 'llamacpp', modelId: 'm' },
};

function snapshot(state: 'running' | 'stopped'): NodeSnapshot {
  return {
    node,
    ok: true,
    status:
      state === 'running'
        ? { state, version: 'dev', model: 'm', ready: 'ready' }
        : { state, version: 'dev' },
  };
}

/** Views over a real scheduler, with the node's source read as each test says. */
function views(source: () => Promise<NodeSource>) {
  const scheduler = new Scheduler(schedulerSettings({ nodes: [{ name: 'box' }] }));
  let now = 1_000;
  const fleet = { path: '/fleet/fleet.yaml', nodes: [node] } as unknown as Fleet;
  const kept = new SchedulerViews({ fleet, source }, (fed) => {
    scheduler.step({ kind: 'views', views: fed }, now);
  });
  return {
    scheduler,
    kept,
    at: (ms: number) => {
      now = ms;
    },
    action: () => scheduler.route('m', now).action,
  };
}

describe('SchedulerViews', () => {
  it('takes a stopped node out of placement at once, while its source is read again', async () => {
    let read: (source: NodeSource) => void = () => undefined;
    let reads = 0;
    const v = views(() => {
      reads += 1;
      // The first read answers; the one after the stop is slow (a cold cache, a remote daemon).
      return reads === 1
        ? Promise.resolve(SOURCE)
        : new Promise((resolve) => {
            read = resolve;
          });
    });
    v.kept.stored(snapshot('running'), 1_000);
    await v.kept.settled();
    // Seen again with its facts known, as every refresh of a running node is.
    v.kept.stored(snapshot('running'), 1_500);
    expect(v.scheduler.placeable('m')).toBe(true);
    v.at(2_000);
    v.kept.stored(snapshot('stopped'), 2_000);
    // A request now is not sent to the stopped engine: it wakes the node, as its known facts say.
    expect(v.scheduler.placeable('m')).toBe(false);
    expect(v.action()).toBe('wake');
    read(SOURCE);
    await v.kept.settled();
    expect(v.scheduler.placeable('m')).toBe(false);
    expect(v.action()).toBe('wake');
  });

  it('feeds a node first seen stopped only once its wake facts are read', async () => {
    let read: (source: NodeSource) => void = () => undefined;
    const v = views(
      () =>
        new Promise((resolve) => {
          read = resolve;
        }),
    );
    v.kept.stored(snapshot('stopped'), 1_000);
    // Nothing known yet: no view that would refuse a request for want of a wake fact.
    expect(v.scheduler.route('m', 1_000).nodes.map((each) => each.state)).not.toContain('stopped');
    read(SOURCE);
    await v.kept.settled();
    expect(v.action()).toBe('wake');
  });
});
