/**
 * A control-plane simulator for remote-environment tests (docs/remote.md): it answers the
 * protocol's calls on 127.0.0.1, verifies every request's SigV4 signature with AWS's own signer
 * (a bad one gets 403), and simulates what a cloud does that a test must see on cue: a boot that
 * answers 503 with `retry_after_seconds` for a while, an undeployed environment, an instance
 * lookup that is eventually consistent (a start soon after a launch does not see it and launches
 * another, so only a client that coalesces gets one boot), and a dropped connection. Its
 * "instance" is a real llama-server on the tiny model, gated with the engine key.
 *
 * Instances outlive the test that booted them (a suite shares one simulator), so they are not
 * tied to one test through startProcess(): each is spawned here and killed by its PID in close().
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { FAKE_AWS, verifySignature } from './sigv4-verifier.ts';
import { type Instance, isReady, killInstance, launchInstance } from './simulated-instance.ts';

export { FAKE_AWS, fakeAwsEnv } from './sigv4-verifier.ts';

export interface SimulatedEnvironment {
  /** The deploy config, as a deploy call stored it; absent = undeployed. */
  deployed?: Record<string, unknown>;
  /** How long a boot takes before the instance reports running (after the engine listens). */
  bootMs?: number;
  retainUntil?: string;
}

export interface SimulatorOptions {
  readonly engineKey: string;
  readonly modelPath: string;
  readonly workDir: string;
  /** How long a new instance is invisible to the lookup (eventual consistency). */
  readonly lookupLagMs?: number;
}

export class ControlPlaneSimulator {
  readonly environments = new Map<string, SimulatedEnvironment>();
  /** Instances launched, per environment (a second one during a boot is the bug to catch). */
  readonly launches = new Map<string, number>();
  /** Every request: method, path with query, and whether its signature verified. */
  readonly requests: { method: string; url: string; verified: boolean; body: string }[] = [];
  /** Start calls still to answer by dropping the connection. */
  dropStarts = 0;
  private readonly instances = new Map<string, Instance[]>();
  private server = createServer((request, response) => {
    void this.handle(request, response).catch((error: unknown) => {
      this.reply(response, 500, { message: (error as Error).message });
    });
  });
  url = '';

  constructor(private readonly options: SimulatorOptions) {}

  async listen(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The registry entry (`remote.json`) for an environment served here. */
  registryEntry(environment: string): Record<string, string> {
    return {
      start_url: `${this.url}/start`,
      stop_url: `${this.url}/stop`,
      stats_url: `${this.url}/stats`,
      update_url: `${this.url}/update`,
      deploy_url: `${this.url}/deploy`,
      env_url: `${this.url}/env`,
      region: FAKE_AWS.AWS_REGION,
      environment,
    };
  }

  async close(): Promise<void> {
    for (const list of this.instances.values()) {
      for (const instance of list) {
        killInstance(instance);
      }
    }
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private reply(response: ServerResponse, status: number, body: unknown): void {
    if (!response.headersSent) {
      response.writeHead(status, { 'content-type': 'application/json' });
    }
    response.end(JSON.stringify(body));
  }

  private visible(environment: string): Instance | undefined {
    const now = Date.now();
    const lag = this.options.lookupLagMs ?? 500;
    return (this.instances.get(environment) ?? []).find((entry) => now - entry.launchedAt >= lag);
  }

  private stateOf(environment: string, env: SimulatedEnvironment): string {
    if (env.deployed === undefined) {
      return 'undeployed';
    }
    const instance = this.visible(environment);
    if (instance === undefined) {
      return 'stopped';
    }
    return isReady(instance) ? 'running' : 'pending';
  }

  private launch(environment: string, env: SimulatedEnvironment): void {
    this.launches.set(environment, (this.launches.get(environment) ?? 0) + 1);
    const served = env.deployed?.['servedModelName'];
    const instance = launchInstance({
      environment,
      engineKey: this.options.engineKey,
      modelPath: this.options.modelPath,
      workDir: this.options.workDir,
      bootMs: env.bootMs ?? 0,
      ...(typeof served === 'string' ? { servedName: served } : {}),
    });
    this.instances.set(environment, [...(this.instances.get(environment) ?? []), instance]);
  }

  private statusBody(environment: string, env: SimulatedEnvironment): Record<string, unknown> {
    const state = this.stateOf(environment, env);
    const instance = this.visible(environment);
    const running = state === 'running' && instance?.port !== undefined;
    const retained =
      env.retainUntil !== undefined && Date.parse(env.retainUntil) > Date.now()
        ? { retainUntil: env.retainUntil }
        : {};
    return {
      state,
      environment,
      ...retained,
      ...(running
        ? {
            healthy: true,
            base_url: `http://127.0.0.1:${instance.port ?? 0}/v1`,
            // The real control plane publishes the key: svc must never show it.
            api_key: this.options.engineKey,
            runner: env.deployed?.['runner'],
            modelId: env.deployed?.['modelId'],
            ...(typeof env.deployed?.['servedModelName'] === 'string'
              ? { servedName: env.deployed['servedModelName'] }
              : {}),
          }
        : {}),
    };
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) {
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks).toString('utf8');
    const url = new URL(request.url ?? '/', this.url);
    const verified = await verifySignature(request, url, body);
    this.requests.push({ method: request.method ?? '', url: request.url ?? '', verified, body });
    if (!verified) {
      this.reply(response, 403, {
        message: 'The request signature we calculated does not match the signature you provided.',
      });
      return;
    }
    const environment = url.searchParams.get('env') ?? '';
    const env = this.environments.get(environment);
    if (env === undefined) {
      this.reply(response, 404, { message: `no environment ${environment}` });
      return;
    }
    const route = `${request.method ?? ''} ${url.pathname}`;
    switch (route) {
      case 'GET /start':
        this.reply(response, 200, this.statusBody(environment, env));
        return;
      case 'POST /start': {
        if (env.deployed === undefined) {
          this.reply(response, 400, { state: 'undeployed', message: 'nothing is deployed' });
          return;
        }
        if (this.dropStarts > 0) {
          this.dropStarts -= 1;
          request.socket.destroy();
          return;
        }
        const retain = url.searchParams.get('retainUntil');
        if (retain !== null) {
          env.retainUntil = retain;
        }
        if (this.visible(environment) === undefined) {
          this.launch(environment, env);
        }
        const state = this.stateOf(environment, env);
        if (state === 'running') {
          this.reply(response, 200, { ...this.statusBody(environment, env), state: 'ready' });
        } else {
          this.reply(response, 503, {
            state: 'pending',
            retry_after_seconds: 1,
            message: 'booting',
          });
        }
        return;
      }
      case 'POST /stop': {
        for (const instance of this.instances.get(environment) ?? []) {
          killInstance(instance);
        }
        this.instances.delete(environment);
        this.reply(response, 200, {
          state: 'stopped',
          message: url.searchParams.get('action') ?? 'terminated',
        });
        return;
      }
      case 'GET /stats':
        if (env.deployed === undefined) {
          this.reply(response, 400, {
            message: 'cannot read deploy config: run svc fleet deploy first',
          });
          return;
        }
        this.reply(response, 200, {
          ...this.statusBody(environment, env),
          runner: env.deployed['runner'],
          modelId: env.deployed['modelId'],
          ...(typeof env.deployed['instanceType'] === 'string'
            ? { instanceType: env.deployed['instanceType'] }
            : {}),
        });
        return;
      case 'POST /update':
        if (url.searchParams.get('cmd') !== 'set-keep') {
          this.reply(response, 400, { message: 'unknown cmd' });
          return;
        }
        env.retainUntil = url.searchParams.get('retainUntil') ?? '';
        this.reply(response, 200, { message: `kept until ${env.retainUntil}` });
        return;
      case 'POST /deploy': {
        const config = JSON.parse(body) as Record<string, unknown>;
        const type = config['instanceType'];
        if (
          type !== undefined &&
          (typeof type !== 'string' || !/^[a-z0-9-]+\.[a-z0-9-]+$/.test(type))
        ) {
          this.reply(response, 400, { message: 'instanceType must be family.size' });
          return;
        }
        env.deployed = config;
        this.reply(response, 200, { message: `deployed ${String(config['modelId'])}` });
        return;
      }
      case 'GET /env': {
        const instance = this.visible(environment);
        this.reply(response, 200, {
          base_url: instance?.port === undefined ? '' : `http://127.0.0.1:${instance.port}/v1`,
          api_key: this.options.engineKey,
        });
        return;
      }
      default:
        this.reply(response, 404, { message: `no route ${route}` });
    }
  }
}

/** A simulator listening on 127.0.0.1 (the caller closes it, killing its instances by PID). */
export async function startControlPlane(options: SimulatorOptions): Promise<ControlPlaneSimulator> {
  return new ControlPlaneSimulator(options).listen();
}
