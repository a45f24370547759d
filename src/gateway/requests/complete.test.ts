/**
 * A model request's count in flight (the scheduler's ledger, the only count) from dispatch to the end of its relay, on every
 * path: a reply that ends, a caller that hangs up mid-stream, an engine that breaks off mid-reply,
 * and an engine that cannot be reached. Real sockets on 127.0.0.1 (node:http servers in this
 * process): the count must follow what the sockets do, not what a fake says they did.
 */
import {
  createServer,
  type IncomingMessage,
  request as httpRequest,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

import { afterEach, describe, expect, it } from 'vitest';

import { daemonNode } from '../../../test/support/project-files/fleet-node.ts';
import type { EngineTarget } from '../../core/fleet/routing/engine-target.ts';
import { Scheduler } from '../../core/fleet/scheduling/scheduler.ts';
import { schedulerSettings } from '../../core/fleet/scheduling/settings.ts';
import type { GatewayScheduler } from '../scheduling/gateway-scheduler.ts';
import { ScheduleLoop } from '../scheduling/schedule-loop.ts';
import { complete, type CompleteDeps } from './complete.ts';

const opened: Server[] = [];
afterEach(() => {
  for (const server of opened.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function listen(server: Server): Promise<string> {
  opened.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A promise and the function that settles it. */
function later<T = void>(): { promise: Promise<T>; settle: (value: T) => void } {
  let settle!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    settle = resolve;
  });
  return { promise, settle };
}

/** A gateway of one route: every request is served by the engine at `origin`, on node `box`. */
async function gatewayTo(origin: string): Promise<{
  url: string;
  /** The scheduler's count (the gateway's only one, docs/design.md D25 `inFlight`). */
  inFlight: {
    of: (node: string) => ReturnType<Scheduler['inFlightOf']>;
    count: (node: string) => number;
  };
  /** Settles when the next request's complete() has (with the error it threw, if any). */
  handled: () => Promise<unknown>;
}> {
  const target: EngineTarget = {
    node: daemonNode('box'),
    baseUrl: `${origin}/v1`,
    origin,
    pathPrefix: '/v1',
  };
  // The real scheduler behind its loop, with one node of unknown slots serving both models.
  const scheduler = new Scheduler(schedulerSettings({ nodes: [{ name: 'box' }] }));
  const loop = new ScheduleLoop(
    scheduler,
    {
      wake: () => Promise.reject(new Error('no wakes here')),
      stop: () => Promise.resolve(false),
      refresh: () => undefined,
    },
    { now: () => Date.now(), after: () => () => undefined },
  );
  loop.views([
    {
      name: 'box',
      observedAt: Date.now(),
      state: 'running',
      ready: true,
      serves: ['qwen', 'gemma'],
    },
  ]);
  const scheduling = {
    scheduler,
    loop,
    admit: (request: Parameters<ScheduleLoop['admit']>[0]) => Promise.resolve(loop.admit(request)),
    target: () => target,
  } as unknown as GatewayScheduler;
  const deps: CompleteDeps = {
    scheduling,
    replyTimeoutMs: 60_000,
    metrics: {
      waitStarted: () => undefined,
      waitEnded: () => undefined,
      fellBack: () => undefined,
      upstreamFailed: () => undefined,
    },
  };
  const outcomes: { promise: Promise<unknown>; settle: (value: unknown) => void }[] = [];
  let next = 0;
  const outcome = (index: number) => {
    while (outcomes.length <= index) {
      outcomes.push(later<unknown>());
    }
    return outcomes[index] as (typeof outcomes)[number];
  };
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const mine = outcome(next);
    next += 1;
    complete(deps, request, response, {}).then(
      () => {
        mine.settle(undefined);
      },
      (error: unknown) => {
        if (!response.headersSent) {
          response.writeHead(502).end();
        }
        mine.settle(error);
      },
    );
  });
  let asked = 0;
  return {
    url: await listen(server),
    inFlight: {
      of: (node) => scheduler.inFlightOf(node, Date.now()),
      count: (node) => scheduler.inFlight(node),
    },
    handled: () => {
      const promise = outcome(asked).promise;
      asked += 1;
      return promise;
    },
  };
}

/** Sends a chat request for `model`; resolves with the response once its headers arrive. */
function post(url: string, model: string): { reply: Promise<IncomingMessage>; hangUp: () => void } {
  const body = JSON.stringify({ model, stream: true });
  const outgoing = httpRequest(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const reply = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.once('response', resolve);
    outgoing.once('error', reject);
  });
  outgoing.end(body);
  return {
    reply,
    hangUp: () => {
      outgoing.destroy();
    },
  };
}

/** The first chunk of a reply's body. */
function firstChunk(reply: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    reply.once('data', (chunk: Buffer) => {
      resolve(chunk.toString());
    });
  });
}

/** An engine that sends one SSE chunk and then holds the stream open until told. */
async function holdingEngine(): Promise<{ origin: string; closed: Promise<void> }> {
  const closed = later();
  const origin = await listen(
    createServer((request, response) => {
      request.resume();
      response.once('close', () => {
        closed.settle();
      });
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write('data: {"n":1}\n\n');
    }),
  );
  return { origin, closed: closed.promise };
}

describe('complete(): requests in flight per node', () => {
  it('counts a stream from dispatch to its end', async () => {
    const finish = later();
    const origin = await listen(
      createServer((request, response) => {
        request.resume();
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: {"n":1}\n\n');
        void finish.promise.then(() => response.end('data: [DONE]\n\n'));
      }),
    );
    const gateway = await gatewayTo(origin);
    const { reply } = post(gateway.url, 'qwen');
    const response = await reply;
    expect(gateway.inFlight.of('box')?.models).toEqual(new Map([['qwen', 1]]));
    response.resume();
    finish.settle();
    expect(await gateway.handled()).toBeUndefined();
    expect(gateway.inFlight.count('box')).toBe(0);
  });

  it("releases a stream when its caller hangs up, and the engine's request is aborted", async () => {
    const engine = await holdingEngine();
    const gateway = await gatewayTo(engine.origin);
    const first = post(gateway.url, 'qwen');
    const second = post(gateway.url, 'gemma');
    await firstChunk(await first.reply);
    await firstChunk(await second.reply);
    expect(gateway.inFlight.of('box')).toMatchObject({
      count: 2,
      models: new Map([
        ['qwen', 1],
        ['gemma', 1],
      ]),
    });
    first.hangUp();
    await gateway.handled();
    await engine.closed;
    expect(gateway.inFlight.count('box')).toBe(1);
    second.hangUp();
    await gateway.handled();
    expect(gateway.inFlight.count('box')).toBe(0);
  });

  it('releases a stream whose engine breaks off mid-reply', async () => {
    const origin = await listen(
      createServer((request, response) => {
        request.resume();
        response.writeHead(200, { 'content-type': 'text/event-stream' });
        response.write('data: {"n":1}\n\n', () => {
          setImmediate(() => response.socket?.destroy());
        });
      }),
    );
    const gateway = await gatewayTo(origin);
    const { reply } = post(gateway.url, 'qwen');
    const response = await reply;
    response.on('error', () => undefined);
    response.resume();
    await gateway.handled();
    expect(gateway.inFlight.count('box')).toBe(0);
  });

  it('releases a request whose engine cannot be reached (502 before any reply)', async () => {
    // A port that was just free: nothing listens on it.
    const closedServer = createServer();
    const origin = await listen(closedServer);
    closedServer.close();
    opened.splice(opened.indexOf(closedServer), 1);
    const gateway = await gatewayTo(origin);
    const { reply } = post(gateway.url, 'qwen');
    expect((await reply).statusCode).toBe(502);
    expect(await gateway.handled()).toMatchObject({ status: 502 });
    expect(gateway.inFlight.count('box')).toBe(0);
  });
});
