/**
 * The `remote` node kind (docs/design.md D21): a cloud environment driven through its control plane
 * (src/remote, docs/remote.md). Its registry entry is read once per run; a missing or incomplete
 * one is a `config-error` reply on that node alone, never a failure of the whole fleet. A wake
 * boots the environment as deployed and pushes nothing (spec §4.2 rule 5).
 */
import type { Clock } from '../../clock.ts';
import { isDeployRunner } from '../../contract/deploy-config.ts';
import { connectRemote } from '../../remote/connect.ts';
import { type ControlPlane, RemoteCallError } from '../../remote/control-plane.ts';
import type { Transport } from '../../remote/transport.ts';
import type { RemoteNode } from '../file/fleet-file.ts';
import type { DriverContext, NodeDriver, NodeOutcome, NodeReply } from './node-driver.ts';

export interface RemoteDriverOptions {
  /** The signed transport for a region; AWS's signer over undici unless a test injects one. */
  readonly transportFor?: (region: string) => Transport;
  readonly now?: Clock;
  readonly sleep?: (ms: number) => Promise<void>;
}

function outcomeOf(error: unknown): NodeOutcome {
  if (!(error instanceof RemoteCallError) || error.status === undefined) {
    return 'unreachable';
  }
  return error.status === 401 || error.status === 403 ? 'unauthorized' : 'failed';
}

async function replyOf<T>(work: () => Promise<T>): Promise<NodeReply<T>> {
  try {
    return { ok: true, value: await work() };
  } catch (error) {
    if (error instanceof ConfigError) {
      return { ok: false, outcome: 'config-error', detail: error.message };
    }
    return {
      ok: false,
      outcome: outcomeOf(error),
      ...(error instanceof RemoteCallError && error.status !== undefined
        ? { status: error.status }
        : {}),
      detail: (error as Error).message,
    };
  }
}

/** The node cannot be called at all: its registry entry is missing, incomplete or unreadable. */
class ConfigError extends Error {}

export function remoteDriver(
  context: DriverContext,
  options: RemoteDriverOptions = {},
): NodeDriver<RemoteNode> {
  const planes = new Map<string, Promise<ControlPlane>>();

  const plane = (node: RemoteNode): Promise<ControlPlane> => {
    let found = planes.get(node.name);
    if (found === undefined) {
      found = connectRemote(context.configDir, node.name, context.env, options).catch(
        (error: unknown) => {
          // Not kept: `svc remote add` while a gateway runs takes effect at the next call.
          planes.delete(node.name);
          throw new ConfigError((error as Error).message);
        },
      );
      planes.set(node.name, found);
    }
    return found;
  };

  return {
    status: (node, timeoutMs) => replyOf(async () => (await plane(node)).status(timeoutMs)),
    async wakeSource(node) {
      const control = await plane(node);
      let stats;
      try {
        stats = await control.stats();
      } catch (error) {
        const nothing =
          error instanceof RemoteCallError && (error.status === 400 || error.status === 404);
        throw new Error(
          nothing
            ? `node "${node.name}" has nothing deployed (${error.message}): deploy it with svc fleet deploy ${node.name}`
            : (error as Error).message,
        );
      }
      const { runner, modelId } = stats;
      if (modelId === undefined || runner === undefined || !isDeployRunner(runner)) {
        throw new Error(
          `node "${node.name}" has nothing deployed: its stats name no ${modelId === undefined ? 'model' : 'deployable runner'}; deploy it with svc fleet deploy ${node.name}`,
        );
      }
      return {
        source: `remote environment "${control.remote.environment}" as deployed`,
        config: { runner, modelId },
      };
    },
    start: (node, _source, startOptions) =>
      replyOf(async () =>
        (await plane(node)).start(
          startOptions?.deadline === undefined ? {} : { deadline: startOptions.deadline },
        ),
      ),
    stop: (node) =>
      replyOf(async () => {
        const control = await plane(node);
        await control.stop();
        return control.status();
      }),
    stats: (node) => replyOf(async () => (await plane(node)).stats()),
  };
}
