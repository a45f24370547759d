/**
 * Through the gateway, the window each running engine really gives one request (I/O at this
 * edge): every node of the fleet file is asked through its kind's driver (docs/design.md D21), and
 * each running one's engine answers `/props` (engine-window.ts). A model served by several
 * running engines gets the smallest window (a request may land on any of them). A node that does
 * not answer, or an engine this machine cannot reach, adds nothing: the Svcfile's figures stand.
 */
import type { NodeDriver } from '../core/fleet/drivers/node-driver.ts';
import type { Fleet, Variables } from '../core/fleet/file/fleet-file.ts';
import { engineTarget } from '../core/fleet/routing/engine-target.ts';
import { type ModelLimits, nodeEngineKey } from './agent-target.ts';
import { type PropsClient, runningWindow } from './engine-window.ts';

export interface RunningInputs {
  readonly fleet: Fleet;
  readonly env: Variables;
  readonly driver: Pick<NodeDriver, 'status'>;
  readonly props: PropsClient;
}

/** The running engines' windows by served name. */
export async function runningWindows(inputs: RunningInputs): Promise<Map<string, ModelLimits>> {
  const { fleet, env, driver, props } = inputs;
  const found = await Promise.all(
    fleet.nodes.map(async (node): Promise<[string, ModelLimits] | undefined> => {
      const reply = await driver.status(node).catch(() => undefined);
      const status = reply?.ok === true ? reply.value : undefined;
      const model = status?.servedName ?? status?.model;
      if (status?.state !== 'running' || model === undefined) {
        return undefined;
      }
      const target = engineTarget({ node, ok: true, status }, fleet.path);
      if ('unusable' in target) {
        return undefined;
      }
      const key = nodeEngineKey(node, status.runner, target.key, env);
      const window = await runningWindow(target.baseUrl, key, props);
      return window === undefined ? undefined : [model, window];
    }),
  );
  const windows = new Map<string, ModelLimits>();
  for (const entry of found) {
    const seen = entry === undefined ? undefined : windows.get(entry[0]);
    if (
      entry !== undefined &&
      (seen?.context === undefined || (entry[1].context ?? 0) < seen.context)
    ) {
      windows.set(entry[0], entry[1]);
    }
  }
  return windows;
}

/** A Svcfile's limits with a running engine's window over its own (the output cap stays). */
export function withRunning(
  limits: ModelLimits | undefined,
  running: ModelLimits | undefined,
): ModelLimits | undefined {
  return running === undefined ? limits : { ...limits, ...running };
}
