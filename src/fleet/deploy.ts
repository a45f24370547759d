/**
 * `svc fleet deploy <node…> | --all`: creates or updates each remote node's environment from its
 * Svcfile source (spec §2.7: the DeployConfig the node resolves to, plus the fleet file's
 * `instance-type`), through its control plane's deploy call. A daemon is configured at start
 * instead, so naming one is an error for that node; one node's failure never stops the others.
 */
import type { DriverContext } from '../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../core/fleet/file/fleet-file.ts';
import { nodeSourceConfig } from '../core/fleet/load/load-fleet.ts';
import { connectRemote } from '../core/remote/connect.ts';
import { deployBody } from '../core/remote/deploy-body.ts';

export interface DeployResult {
  readonly node: string;
  readonly outcome: 'ok' | 'failed';
  readonly source?: string;
  readonly model?: string;
  readonly message?: string;
  readonly error?: string;
}

async function deployOne(context: DriverContext, node: FleetNode): Promise<DeployResult> {
  if (node.kind !== 'remote') {
    return {
      node: node.name,
      outcome: 'failed',
      error: `node "${node.name}" is a daemon: it is sent its Svcfile's config when it starts (svc fleet start ${node.name}); deploy applies to remote nodes`,
    };
  }
  try {
    const { source, config } = await nodeSourceConfig(context.fleet, node, context);
    const body = deployBody(node.name, config, node.instanceType);
    const control = await connectRemote(context.configDir, node.name, context.env);
    const reply = await control.deploy(body);
    const message =
      typeof reply === 'object' &&
      reply !== null &&
      typeof (reply as { message?: unknown }).message === 'string'
        ? (reply as { message: string }).message.slice(0, 500)
        : undefined;
    return {
      node: node.name,
      outcome: 'ok',
      source,
      ...(body.modelId === undefined ? {} : { model: body.modelId }),
      ...(message === undefined ? {} : { message }),
    };
  } catch (error) {
    return { node: node.name, outcome: 'failed', error: (error as Error).message };
  }
}

/** Deploys each node in turn, writing a line per node (or, with `json`, one array at the end). */
export async function deployNodes(
  context: DriverContext,
  nodes: readonly FleetNode[],
  json: boolean,
  write: (text: string) => void,
): Promise<number> {
  const results: DeployResult[] = [];
  for (const node of nodes) {
    const result = await deployOne(context, node);
    results.push(result);
    if (!json) {
      write(
        result.outcome === 'ok'
          ? `${result.node}  deployed ${result.model ?? ''} from ${result.source ?? ''}${result.message === undefined ? '' : ` (${result.message})`}\n`
          : `${result.node}  failed: ${result.error ?? ''}\n`,
      );
    }
  }
  if (json) {
    write(`${JSON.stringify(results, null, 2)}\n`);
  }
  return results.every((result) => result.outcome === 'ok') ? 0 : 1;
}
