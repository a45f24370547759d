/**
 * Waking the machine under a node (docs/design.md D26): when its daemon does not answer and a
 * request needs it, run the node's wake command (Wake-on-LAN, `ssh host systemctl start …`, a smart
 * plug), then ask the daemon its status until it answers, all within the wake deadline. The
 * engine's own wake (wake.ts) follows as for any stopped node. Concurrent callers for one node
 * share one run.
 */
import { formatDurationText } from '../../core/duration.ts';
import type { NodeDriver } from '../../core/fleet/drivers/node-driver.ts';
import type { FleetNode } from '../../core/fleet/file/fleet-file.ts';
import { GatewayError } from '../../core/http/gateway-error.ts';
import type { Logger } from '../../core/logger.ts';
import { describeResult, type NodeCommandResult, type NodeCommands } from './node-commands.ts';
import { WAKE_EDGES, type WakeEdges } from './wake-edges.ts';

/** How often a waking machine's daemon is asked: a boot takes seconds, a wake gap should not. */
export const MACHINE_POLL_MS = 500;
/** One status ask's longest wait: a machine still booting may drop packets rather than refuse. */
const PROBE_TIMEOUT_MS = 2_000;
/** A machine that did not come up in time may still be booting: a retry after this may find it. */
const RETRY_AFTER_MACHINE_S = 30;

export interface MachineWakeRequest {
  readonly node: FleetNode;
  /** The node's `wakeCommand`, exactly as the fleet file gives it. */
  readonly argv: readonly string[];
  /** When the caller stops waiting (ms since the epoch): the wake timeout from the request. */
  readonly deadline: number;
  /** The wake timeout itself, for the message when it passes. */
  readonly timeoutMs: number;
}

export class MachineWaker {
  private readonly inflight = new Map<string, Promise<void>>();

  constructor(
    private readonly commands: Pick<NodeCommands, 'run'>,
    private readonly client: Pick<NodeDriver, 'status'>,
    private readonly logger: Logger,
    private readonly edges: Pick<WakeEdges, 'now' | 'sleep'> = WAKE_EDGES,
  ) {}

  /**
   * Resolves once the node's daemon answers; rejects with a 502 `wake_failed` naming the command's
   * outcome and last lines, or a 504 `wake_timeout` naming the node. Joins a wake already going.
   */
  wake(request: MachineWakeRequest): Promise<void> {
    const name = request.node.name;
    let pending = this.inflight.get(name);
    if (pending === undefined) {
      pending = this.run(request).finally(() => this.inflight.delete(name));
      this.inflight.set(name, pending);
    }
    return pending;
  }

  private async run(request: MachineWakeRequest): Promise<void> {
    const { node, argv, deadline } = request;
    this.logger.info('waking machine', { node: node.name });
    const result = await this.commands.run({
      node: node.name,
      command: 'wake',
      argv,
      limitMs: deadline - this.edges.now(),
    });
    if (result.outcome === 'timeout') {
      throw machineTimedOut(request, 'its wake command was still running');
    }
    if (result.outcome === 'failed') {
      throw wakeCommandFailed(node, result);
    }
    for (;;) {
      const left = deadline - this.edges.now();
      if (left <= 0) {
        throw machineTimedOut(request, 'its daemon never answered after the wake command');
      }
      const reply = await this.client.status(node, Math.min(PROBE_TIMEOUT_MS, left));
      // Any answer but silence means the daemon is up: a refusal (a wrong token) is the engine
      // wake's to report, with the words it has for it.
      if (reply.ok || reply.outcome !== 'unreachable') {
        this.logger.info('machine awake', { node: node.name });
        return;
      }
      await this.edges.sleep(Math.max(0, Math.min(MACHINE_POLL_MS, deadline - this.edges.now())));
    }
  }
}

/** docs/design.md D19: the wake command did not bring the machine up; its words say why. */
export function wakeCommandFailed(node: FleetNode, result: NodeCommandResult): GatewayError {
  const lines =
    result.lastLines.length === 0
      ? '; it wrote nothing'
      : `; its last lines:\n${result.lastLines.map((line) => `  ${line}`).join('\n')}`;
  return new GatewayError(
    502,
    `node "${node.name}" did not answer, and ${describeResult(result)}${lines}`,
    { code: 'wake_failed' },
  );
}

/**
 * docs/design.md D19: a wake timeout is a 504; the machine may still be booting, so a retry can
 * help.
 */
function machineTimedOut(request: MachineWakeRequest, why: string): GatewayError {
  return new GatewayError(
    504,
    `node "${request.node.name}" did not answer within ${formatDurationText(request.timeoutMs)} of being woken (${why}); check the machine and its daemon`,
    { code: 'wake_timeout', retryAfterSeconds: RETRY_AFTER_MACHINE_S },
  );
}
