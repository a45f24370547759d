/**
 * A fleet of slot-limited fake engines for the scheduler's end-to-end tests (docs/design.md D25,
 * D26): the built gateway in front of K real `svc daemon` nodes, each running
 * test/fixtures/fake-engine.mjs with `slots:N,hold:MS` for the same model, so capacity, queueing
 * and spill-over show on cue without a real engine's cost. Every completion names the engine that
 * served it (`x-fake-engine-port`), so a test counts replies per node with servedBy(). Every
 * process is started through startProcess() (gateway-fleet.ts), so each is killed by PID at the
 * test's end, or sooner by stop().
 */
import { eventually } from '../time/eventually.ts';
import {
  type FleetNodeSpec,
  GATEWAY_TOKEN,
  type GatewayFleet,
  startGatewayFleet,
} from './gateway-fleet.ts';

export interface SlotFleetOptions {
  /** How many daemon nodes (K). */
  readonly nodes: number;
  /** Request slots per engine (FAKE_ENGINE `slots:N`; also the Svcfile's PARALLEL). */
  readonly slots: number;
  /** How long each completion holds its slot (FAKE_ENGINE `hold:MS`). */
  readonly holdMs: number;
  /** The model every node serves (its Svcfile ALIAS); `fake` by default. */
  readonly model?: string;
  /** Top-level fleet-file text, as written (`queue: {max: 16}`, `affinity: off`, `groups: …`). */
  readonly fleetText?: string;
  /** Lines added under every node (`group: gpu`, `scaleOut: on`). */
  readonly nodeLines?: readonly string[];
  /** Other FAKE_ENGINE modes for every node (`slow-health:500`). */
  readonly extraModes?: readonly string[];
  readonly gatewayArgs?: readonly string[];
}

export interface SlotFleet {
  /** `http://127.0.0.1:<port>` of the gateway. */
  readonly url: string;
  /** The gateway token every request needs. */
  readonly token: string;
  /** The node names, in file order: `n1` … `nK`. */
  readonly names: readonly string[];
  readonly fleet: GatewayFleet;
  /** Starts every node through the gateway (as `svc fleet start` does) and waits until each serves. */
  startAll(): Promise<void>;
  /** Stops the gateway and every daemon (each daemon stops its engine), by PID. */
  stop(): Promise<void>;
}

export async function startSlotFleet(options: SlotFleetOptions): Promise<SlotFleet> {
  const model = options.model ?? 'fake';
  const names = Array.from({ length: options.nodes }, (_, index) => `n${index + 1}`);
  const modes = [`slots:${options.slots}`, `hold:${options.holdMs}`, ...(options.extraModes ?? [])];
  const nodes: FleetNodeSpec[] = names.map((name) => ({
    name,
    svcfile: `PROVIDER llamacpp\nMODEL org/${model}\nALIAS ${model}\nPARALLEL ${options.slots}\nBASEURL 127.0.0.1:{port}\n`,
    fake: modes.join(','),
    ...(options.nodeLines === undefined ? {} : { extra: options.nodeLines }),
  }));
  const fleet = await startGatewayFleet(nodes, {
    top: options.fleetText === undefined ? [] : options.fleetText.split('\n'),
    ...(options.gatewayArgs === undefined ? {} : { gatewayArgs: options.gatewayArgs }),
  });
  const headers = { authorization: `Bearer ${GATEWAY_TOKEN}` };
  return {
    url: fleet.url,
    token: GATEWAY_TOKEN,
    names,
    fleet,
    async startAll() {
      for (const name of names) {
        const reply = await fetch(`${fleet.url}/v1/fleet/nodes/${name}/start`, {
          method: 'POST',
          headers,
        });
        if (reply.status !== 200) {
          throw new Error(`start ${name}: HTTP ${reply.status} ${await reply.text()}`);
        }
      }
      await waitUntilServing(fleet, names);
    },
    async stop() {
      await fleet.gateway.kill();
      for (const daemon of Object.values(fleet.daemons)) {
        await daemon.terminate();
      }
    },
  };
}

/** Waits until each node's daemon reports its engine running and ready (StatusResponse `ready`). */
async function waitUntilServing(fleet: GatewayFleet, names: readonly string[]): Promise<void> {
  for (const name of names) {
    const daemon = fleet.daemons[name];
    if (daemon === undefined) {
      throw new Error(`no daemon for ${name}`);
    }
    await eventually(
      async () => {
        const { json } = await daemon.call('GET', '/v1/status');
        return `${String(json['state'])} ${String(json['ready'])}`;
      },
      (state) => state === 'running ready',
      `node ${name} to run its engine`,
    );
  }
}

/** The engine port a gateway reply came from (the fake's `x-fake-engine-port` header). */
export function servedBy(reply: Response): number | undefined {
  const port = reply.headers.get('x-fake-engine-port');
  return port === null ? undefined : Number(port);
}
