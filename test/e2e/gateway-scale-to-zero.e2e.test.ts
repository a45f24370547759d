/**
 * Scale to zero (docs/design.md D26), end to end: the built gateway in front of real daemons
 * running the real llama-server on the tiny model, with short settings. An idle node's engine is
 * stopped and woken again by the next request; a keep-warm node starts with the gateway and
 * outlives the idle stop; a group of one swaps its members' engines and never runs two at once
 * (watched on the process table); a wake command starts a daemon that was not running, once for
 * concurrent requests; a request right after a sleep command succeeded runs the wake command, at
 * the daemon's default sampling interval, though the gateway's last status still shows the daemon
 * answering; and two gateway replicas judge idleness by the node's own activity, so the one
 * without traffic never stops a node the other uses.
 */
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { writeTinyModel } from '../support/models/tiny-model.ts';
import { nodesWithEngines, watchEngines } from '../support/processes/engine-watch.ts';
import { freePort } from '../support/svc/daemon.ts';
import { startGatewayFleet, startTestGateway } from '../support/svc/gateway-fleet.ts';
import {
  chat,
  nodeState,
  sleeperGateway,
  stream,
  wokenDaemon,
  writeSleeperFleet,
} from '../support/svc/scale-to-zero.ts';
import { tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

/** A Svcfile serving the tiny model as `alias` on a port picked once the gateway is up. */
async function tinyNode(name: string, alias: string, extra: readonly string[] = []) {
  const model = await writeTinyModel(join(await tempDir(), 'tiny.gguf'));
  return {
    name,
    svcfile: `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nBASEURL 127.0.0.1:{port}\n`,
    extra,
  };
}

const started = (output: string): number => (output.match(/INFO {2}engine started/g) ?? []).length;

/** What is left of a streamed reply, read to its end; a stream cut off says so at its end. */
async function rest(reply: Response): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of reply.body ?? []) {
      text += decoder.decode(chunk as Uint8Array, { stream: true });
    }
  } catch (error) {
    text += `\n(cut off: ${(error as Error).message})`;
  }
  return text;
}

describe('scale to zero', () => {
  it('stops an idle node, wakes it for the next request, and keeps a keep-warm node running', async () => {
    const fleet = await startGatewayFleet(
      [await tinyNode('warm', 'tiny-w', ['keepWarm: on']), await tinyNode('cold', 'tiny-c')],
      // Under keep-warm and idle stop the gateway reads every Svcfile as it starts.
      { top: ['idleStop: 3s'], svcfilesFirst: true },
    );
    const { warm, cold } = fleet.daemons as Record<'warm' | 'cold', (typeof fleet.daemons)[string]>;
    // No request yet: the keep-warm node is started with the gateway; the other is left alone.
    await eventually(
      () => nodeState(warm.url),
      (state) => state === 'running',
      'warm running',
    );
    expect(await nodeState(cold.url)).toBe('idle');

    expect(await chat(fleet.url, 'tiny-c')).toBe('200 chat.completion');
    expect(await nodeState(cold.url)).toBe('running');
    // Nothing since: its engine is stopped, by the gateway, for idleness.
    await eventually(
      () => nodeState(cold.url),
      (state) => state === 'stopped',
      'cold stopped',
    );
    expect(fleet.gateway.stderr()).toMatch(/stopping idle node.*node=cold/);
    // The keep-warm node has been idle longer than that, and runs on: started once, never stopped.
    expect(await nodeState(warm.url)).toBe('running');
    expect(started(warm.process.output())).toBe(1);
    expect(fleet.gateway.stderr()).not.toMatch(/stopping idle node.*node=warm/);

    // The next request wakes the idle node and is answered.
    expect(await chat(fleet.url, 'tiny-c')).toBe('200 chat.completion');
    expect(await nodeState(cold.url)).toBe('running');
    expect(started(cold.process.output())).toBe(2);
  });

  it('a group of one swaps engines, waits for a stream, and never runs two at once', async () => {
    const fleet = await startGatewayFleet(
      [
        await tinyNode('a', 'tiny-a', ['group: gpu']),
        await tinyNode('b', 'tiny-b', ['group: gpu']),
      ],
      { top: ['groups: {gpu: {max: 1, minResidency: 1s}}'] },
    );
    const { a, b } = fleet.daemons as Record<'a' | 'b', (typeof fleet.daemons)[string]>;
    const watch = watchEngines(() => nodesWithEngines({ a: a.process.pid, b: b.process.pid }));

    expect(await chat(fleet.url, 'tiny-a')).toBe('200 chat.completion');
    expect(nodesWithEngines({ a: a.process.pid, b: b.process.pid })).toEqual(['a']);
    // Model B while A is loaded: A is stopped, then B started, and the request is served.
    expect(await chat(fleet.url, 'tiny-b')).toBe('200 chat.completion');
    expect([await nodeState(a.url), await nodeState(b.url)]).toEqual(['stopped', 'running']);
    expect(fleet.gateway.stderr()).toMatch(/stopping node for a swap.*node=a/);

    // A request for A during a stream on B waits for the stream's end, then is served.
    const onB = await stream(fleet.url, 'tiny-b', 1000);
    expect(onB.status).toBe(200);
    const reader = onB.body?.getReader();
    const first = await reader?.read();
    expect(new TextDecoder().decode(first?.value as Uint8Array | undefined)).toMatch(/^data: \{/m);
    // A waits for B's stream to end. Told so in a comment when that took 2 s or more
    // (docs/design.md D25); on a machine fast enough to end B's 1000 tokens sooner, its headers
    // came only once it was sent on, and their Server-Timing says how long it queued.
    const forA = await stream(fleet.url, 'tiny-a', 4);
    expect(forA.status).toBe(200);
    const readA = forA.body?.getReader();
    let toldA = '';
    while (!/^(: |data:)/m.test(toldA)) {
      const chunk = await readA?.read();
      if (chunk === undefined || chunk.done) {
        break;
      }
      toldA += new TextDecoder().decode(chunk.value as Uint8Array);
    }
    const waited = /^: /m.test(toldA)
      ? /^: (queued for tiny-a|waking a)/m.exec(toldA)?.[0]
      : /queue;dur=\d+/.exec(forA.headers.get('server-timing') ?? '')?.[0];
    expect(waited).toBeDefined();
    // B's stream runs to its full length (no swap cut it), and A is then swapped in and answers;
    // the watch below shows that A's engine never ran beside B's.
    reader?.releaseLock();
    readA?.releaseLock();
    const [restA, restB] = await Promise.all([rest(forA), rest(onB)]);
    expect(restB).toMatch(/"finish_reason":"length"[^]*data: \[DONE\]/);
    expect(toldA + restA).toMatch(/^data: \{[^]*data: \[DONE\]/m);

    // Concurrent requests for both models: every one answered, one engine at a time.
    const replies = await Promise.all(
      ['tiny-a', 'tiny-b', 'tiny-a', 'tiny-b', 'tiny-a', 'tiny-b'].map((model) =>
        chat(fleet.url, model),
      ),
    );
    expect(replies).toEqual(Array(6).fill('200 chat.completion'));
    watch.stop();
    expect(watch.overlaps).toEqual([]);
    expect(watch.busySamples).toBeGreaterThan(0);
  });

  it('runs a wake command once for concurrent requests to a node whose daemon is down', async () => {
    const dir = await tempDir();
    const model = await writeTinyModel(join(dir, 'tiny.gguf'));
    const daemonPort = await freePort();
    const woken = await wokenDaemon(dir, daemonPort);
    await writeSleeperFleet(dir, woken, { model, daemonPort, enginePort: await freePort() });
    const daemonUrl = `http://127.0.0.1:${daemonPort}`;
    const { gateway, url } = await startTestGateway({ cwd: dir, configDir: join(dir, 'config') });
    expect(await nodeState(daemonUrl)).toBe('down');

    const replies = await Promise.all([1, 2, 3].map(() => chat(url, 'tiny')));
    expect(replies).toEqual(Array(3).fill('200 chat.completion'));
    expect(await woken.runs()).toBe(1);
    expect(await nodeState(daemonUrl)).toBe('running');
    expect(gateway.stderr()).toMatch(/machine awake.*node=sleeper/);
  });

  it('wakes a node put to sleep for a request its status refresh has not seen go', async () => {
    // An idle stop longer than the gateway's 30 s of rest after a request: by then only the idle
    // watch asks the node (every 10 s), so the status the gateway holds when the sleep command
    // ends was asked while the daemon still answered, and is fresh (docs/design.md D33).
    const { gateway, url, woken, daemonUrl } = await sleeperGateway('41s');

    expect(await chat(url, 'tiny')).toBe('200 chat.completion');
    expect(await woken.runs()).toBe(1);
    await gateway.waitFor(/sleep command done.*node=sleeper.*outcome=ok/, 100_000);
    expect(await chat(url, 'tiny')).toBe('200 chat.completion');
    expect(await woken.runs()).toBe(2);
    expect(await nodeState(daemonUrl)).toBe('running');
  }, 180_000);

  it('two replicas: the node is not stopped while one uses it, and is once both are quiet', async () => {
    const fleet = await startGatewayFleet([await tinyNode('shared', 'tiny')], {
      top: ['idleStop: 3s'],
      svcfilesFirst: true,
    });
    const shared = fleet.daemons['shared'];
    if (shared === undefined) {
      throw new Error('no daemon for node "shared"');
    }
    const quiet = await startTestGateway({
      cwd: fleet.dir,
      configDir: join(fleet.dir, 'config-2'),
    });

    // The busy replica sends a request about every 0.7 s for three idle-stop periods; the quiet
    // replica watches the node all that time, judging it by the node's own lastActiveAt.
    const busyUntil = Date.now() + 9_000;
    const states: string[] = [];
    while (Date.now() < busyUntil) {
      expect(await chat(fleet.url, 'tiny')).toBe('200 chat.completion');
      states.push(await nodeState(shared.url));
      await new Promise((resolve) => setTimeout(resolve, 700));
    }
    expect(new Set(states)).toEqual(new Set(['running']));
    expect(started(shared.process.output())).toBe(1);
    expect(quiet.gateway.stderr()).not.toMatch(/stopping idle node/);
    expect(fleet.gateway.stderr()).not.toMatch(/stopping idle node/);

    // Both quiet now: the node is stopped for idleness.
    await eventually(
      () => nodeState(shared.url),
      (state) => state === 'stopped',
      'shared stopped',
    );
    expect(`${fleet.gateway.stderr()}${quiet.gateway.stderr()}`).toMatch(
      /stopping idle node.*node=shared/,
    );
  });
});
