/**
 * The local node kind (docs/design.md D27) against fake engines: a wake starts the node's config on
 * the port BASEURL names, else its engine.port, else a free loopback port reported in status; the
 * engine key goes to the node's key file, never into argv; status and stats answer from the
 * node's own record (spec §3: a second start is 409, a crash is crashed, a stop is stopped); the
 * files live under <fleet state dir>/nodes/<name>/. No process starts and no time is waited for.
 */
import { describe, expect, it } from 'vitest';

import {
  AT,
  CONFIG,
  enginesHarness,
  FLEET,
  SOURCE,
} from '../../../../test/support/fakes/local-engines.ts';
import { localNode } from '../../../../test/support/project-files/fleet-node.ts';
import { EngineStartError } from '../../runner/engine-process.ts';
import type { LocalNode } from '../file/fleet-file.ts';
import { localDriver, PORT_TRIES, withPort } from './local-driver.ts';

/** The engines harness with the local driver over them, as the gateway's by-kind table builds it. */
function harness(leftOver: readonly string[] = [], failures: readonly Error[] = []) {
  const h = enginesHarness(leftOver, failures);
  const freePorts: number[] = [];
  const driver = localDriver({ fleet: FLEET, configDir: '/cfg', env: {} }, h.engines, {
    now: () => AT,
    freePort: () => {
      freePorts.push(41001 + freePorts.length);
      return Promise.resolve(freePorts.at(-1) ?? 0);
    },
  });
  return { ...h, driver, freePorts };
}

const flag = (args: readonly string[], name: string): string | undefined =>
  args[args.lastIndexOf(name) + 1];

describe('local driver', () => {
  it('reports idle before any start, from the node own record', async () => {
    const h = harness();
    expect(await h.driver.status(localNode('box'))).toEqual({
      ok: true,
      value: { state: 'idle', version: expect.any(String) as string },
    });
  });

  it('starts on a free loopback port when BASEURL names none, and reports it', async () => {
    const h = harness();
    const reply = await h.driver.start(localNode('box'), SOURCE);
    const args = h.launched[0]?.args ?? [];
    expect(flag(args, '--port')).toBe('41001');
    expect(flag(args, '--host')).toBe('127.0.0.1');
    expect(reply).toMatchObject({
      ok: true,
      value: {
        state: 'running',
        model: 'org/tiny-GGUF',
        servedName: 'tiny',
        logPath: '/cfg/nodes/box/engine.log',
        engine: { port: 41001, loopbackOnly: true, requiresKey: false },
      },
    });
  });

  it('starts again on another free port when the one picked was taken before the bind', async () => {
    const taken = (port: number) =>
      new EngineStartError(
        `the engine exited during start-up (exit code 1); the engine's last log lines:\n  start: couldn't bind HTTP server socket, hostname: 127.0.0.1, port: ${port}`,
        { code: 1, signal: null },
      );
    const h = harness([], [taken(41001)]);
    const reply = await h.driver.start(localNode('box'), SOURCE);
    expect(h.launched.map((options) => flag(options.args, '--port'))).toEqual(['41001', '41002']);
    expect(reply).toMatchObject({ ok: true, value: { engine: { port: 41002 } } });
    // Bounded: a port taken every time fails the start, naming why.
    const unlucky = harness([], [taken(41001), taken(41002), taken(41003)]);
    const failed = await unlucky.driver.start(localNode('box'), SOURCE);
    expect(unlucky.launched).toHaveLength(PORT_TRIES);
    expect(failed).toMatchObject({ ok: false, status: 400 });
    expect(failed.ok ? '' : failed.detail).toContain("couldn't bind HTTP server socket");
  });

  it('tries no other port when the failure is not a taken port, or the port was named', async () => {
    const other = new EngineStartError('the engine exited during start-up (exit code 1)', {
      code: 1,
      signal: null,
    });
    const h = harness([], [other]);
    expect(await h.driver.start(localNode('box'), SOURCE)).toMatchObject({ ok: false });
    expect(h.launched).toHaveLength(1);
    const named = harness([], [new EngineStartError("couldn't bind HTTP server socket")]);
    const config = { ...CONFIG, serveArgs: ['--port', '9001'] };
    expect(await named.driver.start(localNode('box'), { ...SOURCE, config })).toMatchObject({
      ok: false,
    });
    expect(named.launched).toHaveLength(1);
  });

  it('keeps the port BASEURL names, asking for no free one', async () => {
    const h = harness();
    const config = { ...CONFIG, serveArgs: ['--host', '0.0.0.0', '--port', '9001'] };
    await h.driver.start(localNode('box'), { ...SOURCE, config });
    expect(flag(h.launched[0]?.args ?? [], '--port')).toBe('9001');
    expect(h.freePorts).toEqual([]);
  });

  it('lets the node engine.port win over BASEURL', async () => {
    const config = { ...CONFIG, serveArgs: ['--port', '9001'] };
    const withOverride = await withPort(config, localNode('box', { engine: { port: 9100 } }), () =>
      Promise.reject(new Error('no free port asked for')),
    );
    expect(flag(withOverride.serveArgs ?? [], '--port')).toBe('9100');
  });

  it('gates the engine with the key through the node key file, never in argv', async () => {
    const h = harness();
    const node: LocalNode = localNode('box', { engineKey: 'sk-secret', engineTokenEnv: 'K' });
    const reply = await h.driver.start(node, SOURCE);
    const args = h.launched[0]?.args ?? [];
    expect(h.keys.get('/cfg/nodes/box/engine-api-key')).toBe('sk-secret');
    expect(flag(args, '--api-key-file')).toBe('/cfg/nodes/box/engine-api-key');
    expect(args.join(' ')).not.toContain('sk-secret');
    expect(reply.ok && reply.value.engine?.requiresKey).toBe(true);
    await h.driver.stop(node);
    expect(h.keys.size).toBe(0);
  });

  it('refuses a second start with 409 and changes nothing (spec §3)', async () => {
    const h = harness();
    await h.driver.start(localNode('box'), SOURCE);
    const again = await h.driver.start(localNode('box'), SOURCE);
    expect(again).toMatchObject({ ok: false, outcome: 'failed', status: 409 });
    expect(h.launched).toHaveLength(1);
  });

  it('stops the engine and reports stopped; a stop with nothing running is fine', async () => {
    const h = harness();
    await h.driver.start(localNode('box'), SOURCE);
    expect(await h.driver.stop(localNode('box'))).toMatchObject({
      ok: true,
      value: { state: 'stopped' },
    });
    expect(h.stopped).toEqual([1001]);
    expect(await h.driver.stop(localNode('box'))).toMatchObject({ ok: true });
  });

  it('reports an engine that exits on its own as crashed', async () => {
    const h = harness();
    await h.driver.start(localNode('box'), SOURCE);
    h.exit(0, { code: 1, signal: null });
    await h.keyRemoved;
    expect(await h.driver.status(localNode('box'))).toMatchObject({
      ok: true,
      value: { state: 'crashed' },
    });
  });

  it('keeps one engine per node, each in its own directory', async () => {
    const h = harness();
    await h.driver.start(localNode('a'), SOURCE);
    await h.driver.start(localNode('b'), SOURCE);
    const a = await h.driver.status(localNode('a'));
    const b = await h.driver.stats(localNode('b'));
    expect(a.ok && a.value.logPath).toBe('/cfg/nodes/a/engine.log');
    expect(b).toMatchObject({ ok: true, value: { state: 'running', modelId: 'org/tiny-GGUF' } });
    expect(h.launched.map((launch) => launch.output)).toEqual([
      { kind: 'log', path: '/cfg/nodes/a/engine.log' },
      { kind: 'log', path: '/cfg/nodes/b/engine.log' },
    ]);
  });
});
