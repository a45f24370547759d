/**
 * Runs the examples of the docs so they cannot drift from the code:
 * - every example in docs/svcfile.md: each ```Svcfile block (with the ```ini title=NAME blocks
 *   after it) is written to a temp directory and `svc serve --dry-run` must print exactly the
 *   command of the ```console block that follows;
 * - README's "Try it" and docs/serve.md's "Off a terminal", command by command, in a directory
 *   laid out as the quick start leaves a checkout (dist/, the engine kit, .cache/demo/tiny.gguf),
 *   against the real llama-server. Fixed ports (4242, 8080) become free ones.
 *   README's `svc code` runs on `npm run demo`'s gateway, with the recording fake opencode.
 * - docs/gateway.md's opening one box: `svc up` over the page's fleet of local nodes (the tiny
 *   model standing in for the three), a request answered, the group of one holding one engine,
 *   and `svc code` pointed at that gateway (the fake opencode again).
 * - docs/gateway.md's `svc fleet` and docs/cli.md's `svc up`, against three-node-fleet.ts's fleet
 *   (its directory is the docs' /srv/fleet).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { consoleBlocks, ConsoleSession } from '../support/docs-examples/console-examples.ts';
import { checkout, linesOf, startDemo } from '../support/docs-examples/docs-checkout.ts';
import { enginesServing, GATEWAY_MD, ONE_BOX, oneBox } from '../support/docs-examples/one-box.ts';
import { svcfileExamples } from '../support/docs-examples/svcfile-examples.ts';
import { expectOpencodeOnGateway } from '../support/fakes/agent-on-gateway.ts';
import { FAKE_AGENT_DIR } from '../support/fakes/fake-agent.ts';
import { freePort } from '../support/http/net.ts';
import { REPO_ROOT, testPath } from '../support/prerequisites/engines.ts';
import { killSurvivorsAfterTest } from '../support/processes/process-tree.ts';
import { runSvc, tempDir } from '../support/svc/svc.ts';
import { threeNodeFleet } from '../support/svc/three-node-fleet.ts';
import { eventually } from '../support/time/eventually.ts';

const page = readFileSync(join(REPO_ROOT, 'docs', 'svcfile.md'), 'utf8');
const cases = svcfileExamples(page);

describe('docs/svcfile.md examples', () => {
  it('has examples for every engine and for presets', () => {
    const all = cases.map((example) => example.svcfile).join('\n');
    for (const provider of ['llamacpp', 'vllm', 'omlx', 'mtplx']) {
      expect(all).toContain(`PROVIDER ${provider}`);
    }
    expect(cases.some((example) => Object.keys(example.files).length > 0)).toBe(true);
  });

  it.each(cases.map((example, index) => [index + 1, example] as const))(
    'example %i prints the documented command',
    async (_index, example) => {
      const dir = await tempDir();
      await writeFile(join(dir, 'Svcfile'), example.svcfile);
      for (const [name, body] of Object.entries(example.files)) {
        await writeFile(join(dir, name), body);
      }
      expect(example.command).toBe('svc serve --dry-run');
      const result = await runSvc(['serve', '--dry-run'], { cwd: dir });
      expect(result.stderr).not.toMatch(/^svc: /m);
      expect(result).toMatchObject({ status: 0, stdout: `${example.expected}\n` });
    },
  );
});

const tryIt = consoleBlocks(join(REPO_ROOT, 'README.md'), '## Try it');

describe("README's Try it and docs/serve.md", () => {
  it('run as documented right after the quick start', async () => {
    const root = await checkout();
    const env = {
      ...process.env,
      PATH: `${join(root, 'bin')}:${testPath()}`,
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_LOG_LEVEL: '',
      SVC_API_TOKEN: '',
      SVC_ALIAS: '',
    };
    const substitutions = new Map([
      ['~/svc', root],
      ['8080', String(await freePort())],
      ['--loopback', '--api-addr 127.0.0.1:0'],
    ]);
    const session = () => new ConsoleSession(root, env, substitutions);

    const [svcfile = [], serve = [], daemon = [], , ...others] = tryIt;
    expect(others).toEqual([]);

    // 1. Write the Svcfile and print its command.
    expect(svcfile.map((step) => step.command)[1]).toBe('node dist/cli.js serve --dry-run try');
    const first = session();
    for (const step of svcfile) {
      await first.run(step);
    }

    // 2. Serve it in the foreground: the command first, the engine up, Ctrl+C stops everything.
    expect(serve).toHaveLength(1);
    const foreground = session();
    const job = await foreground.background(
      serve[0]?.command ?? '',
      /llama_server: listening on http/,
    );
    expect(job.stdout().split('\n')[0]).toBe(foreground.substitute(svcfile[1]?.expected ?? ''));
    await foreground.kill(1, 'SIGINT');
    expect(await job.exited()).toBe(0);
    expect(job.stderr().trimEnd().split('\n').at(-1)).toBe(
      'svc serve stopped: the engine was stopped',
    );

    // 3. A daemon on loopback, driven with curl.
    const [start, ...calls] = daemon;
    expect(start?.command.endsWith(' &')).toBe(true);
    // The start answers before the engine has loaded its model: the page shows the wait a reader
    // needs before the status says ready, and it is run here as written.
    const readAt = calls.findIndex((step) => step.command.endsWith('/v1/status'));
    expect(calls[readAt - 1]?.command).toMatch(/^until curl -s \S+\/v1\/status .*"ready":"ready"/);
    const drive = session();
    const running = await drive.background(
      (start?.command ?? '').replace(/ &$/, ''),
      /listening on http:\/\/127\.0\.0\.1:\d+/,
    );
    substitutions.set('4242', /127\.0\.0\.1:(\d+)/.exec(running.stdout())?.[1] ?? '');
    for (const step of calls) {
      await drive.run(step);
    }
    expect(running.stdout().trimEnd().split('\n').at(-1)).toBe('svc daemon stopped');
    substitutions.delete('4242');

    // docs/serve.md, off a terminal: the first two lines of the log, then a clean stop.
    const [offTerminal = [], ...more] = consoleBlocks(
      join(REPO_ROOT, 'docs', 'serve.md'),
      '## Off a terminal',
    );
    expect(more).toEqual([]);
    const [background, head, kill] = offTerminal;
    expect(background?.command).toBe('svc serve try > serve.log 2>&1 &');
    const piped = session();
    await piped.background((background?.command ?? '').replace(/ &$/, ''));
    await linesOf(join(root, 'serve.log'), 2);
    await piped.run(head ?? { command: 'false', expected: '' });
    await piped.run(kill ?? { command: 'false', expected: '' });
    const log = await readFile(join(root, 'serve.log'), 'utf8');
    expect(log.trimEnd().split('\n').at(-1)).toBe('svc serve stopped: the engine was stopped');
  }, 240_000);

  it("launches opencode with svc code on npm run demo's gateway", async () => {
    const root = await checkout();
    const { demo, port } = await startDemo(root);
    const record = join(root, 'agent.json');
    const env = {
      ...process.env,
      // The fake opencode first: a checkout's node_modules/.bin would hold the real one.
      PATH: `${join(root, 'bin')}:${testPath(FAKE_AGENT_DIR)}`,
      SVC_CONFIG_DIR: join(root, 'config'),
      SVC_LOG_LEVEL: '',
      SVC_API_TOKEN: '',
      SVC_ALIAS: '',
      FAKE_AGENT_RECORD: record,
    };
    const session = new ConsoleSession(root, env, new Map([['4000', String(port)]]));
    const [launch, ...more] = tryIt[3] ?? [];
    expect(more).toEqual([]);
    expect(launch?.command).toContain('node dist/cli.js code -f .cache/demo/fleet.yaml');
    await session.run(launch ?? { command: 'false', expected: '' }, 'stderr');
    await expectOpencodeOnGateway(record, `http://127.0.0.1:${port}/v1`, 'tiny');

    process.kill(demo.pid, 'SIGINT');
    expect(await demo.exited()).toBe(0);
    expect(demo.stdout().trimEnd().split('\n').at(-1)).toBe(
      'demo stopped: the gateway, the daemon and its engine have all exited',
    );
  }, 240_000);
});

describe("docs/gateway.md's one box", () => {
  it('runs as documented: svc up over local nodes, a request, one engine, svc code', async () => {
    const box = await oneBox();
    expect([...box.files.keys()]).toEqual([
      'fleet.yaml',
      'qwen/Svcfile',
      'coder/Svcfile',
      'gemma/Svcfile',
    ]);
    expect(box.files.get('fleet.yaml')).toMatch(/groups:\n {2}gpu: \{ max: 1 \}/);
    const [up = [], use = [], code = [], ...more] = consoleBlocks(GATEWAY_MD, ONE_BOX);
    expect(more).toEqual([]);
    const { session } = box;

    // svc up in the foreground: its start-up lines exactly as the page prints them.
    expect(up.map((step) => step.command)).toEqual(['svc up']);
    const gateway = await session.background(
      'svc up',
      /engines run by this gateway, logs under .*\n/,
    );
    // The fleet's own directory (docs/design.md D27) is named after its file's path.
    const [fleetDir = ''] = readdirSync(join(box.configDir, 'fleets'));
    session.substitutions.set('models-7fca3e53', fleetDir);
    expect(gateway.stdout()).toBe(`${session.substitute(up[0]?.expected ?? '')}\n`);

    // From another terminal: the request wakes coder and is answered; then svc fleet status.
    for (const step of use) {
      await session.run(step);
    }
    // The group of one holds one engine: only coder's runs, on the process table and in the fleet.
    const engines = enginesServing(box.model);
    killSurvivorsAfterTest(engines);
    expect(engines).toHaveLength(1);
    const fleet = (await (await fetch(`http://127.0.0.1:${box.port}/v1/fleet`)).json()) as {
      nodes: { name: string; state: string; group?: string }[];
    };
    expect(fleet.nodes.map((node) => [node.name, node.state, node.group])).toEqual([
      ['qwen', 'idle', 'gpu'],
      ['coder', 'running', 'gpu'],
      ['gemma', 'idle', 'gpu'],
    ]);

    // svc code: the launch line, and the agent handed the gateway that answers for coder.
    const [launch, ...others] = code;
    expect(others).toEqual([]);
    await session.run(launch ?? { command: 'false', expected: '' }, 'stderr');
    await expectOpencodeOnGateway(box.agentRecord, `http://127.0.0.1:${box.port}/v1`, 'coder');

    // Ctrl+C stops the engine, then the gateway.
    await session.kill(1, 'SIGINT');
    expect(await gateway.exited()).toBe(0);
    expect(gateway.stdout().trimEnd().split('\n').at(-1)).toBe('svc gateway stopped');
    expect(enginesServing(box.model)).toEqual([]);
  }, 240_000);
});

describe('docs/cli.md', () => {
  it('shows the refusals of a misspelt flag and command as they are printed', async () => {
    const root = await checkout();
    const env = { ...process.env, PATH: `${join(root, 'bin')}:${testPath()}`, SVC_LOG_LEVEL: '' };
    const [typos = [], ...more] = consoleBlocks(join(REPO_ROOT, 'docs', 'cli.md'), '## Exit codes');
    expect(more).toEqual([]);
    expect(typos.length).toBeGreaterThan(0);
    const session = new ConsoleSession(root, env, new Map());
    for (const step of typos) {
      await session.refused(step, 2);
    }
  });
});

describe("docs/gateway.md's svc fleet and docs/cli.md's svc up", () => {
  it('run as documented against real daemons', async () => {
    const fleet = await threeNodeFleet();
    const bin = join(fleet.dir, 'bin');
    await mkdir(bin);
    await symlink(join(REPO_ROOT, 'dist', 'cli.js'), join(bin, 'svc'));
    const app = await tempDir();
    const env = {
      ...process.env,
      PATH: `${bin}:${testPath()}`,
      SVC_CONFIG_DIR: join(fleet.dir, 'config'),
      SVC_LOG_LEVEL: '',
      SVC_ALIAS: '',
    };
    const substitutions = new Map([
      ['/srv/fleet', fleet.dir],
      ['/srv/app', app],
      ['8080', String(fleet.enginePort)],
    ]);
    const session = new ConsoleSession(fleet.dir, env, substitutions);
    const blocks = consoleBlocks(join(REPO_ROOT, 'docs', 'gateway.md'), '## `svc fleet`');
    const [status, unknown, wake, serve, start, metrics, logs, up, ...more] = blocks;
    expect(more).toEqual([]);
    const run = async (block: typeof status): Promise<void> => {
      for (const step of block ?? []) {
        await session.run(step);
      }
    };

    await run(status);
    await session.refused(unknown?.[0] ?? { command: 'false', expected: '' }, 2);
    await run(wake);
    await run(start);
    // The documented route names a ready engine: wait for gpu-a to finish loading.
    await eventually(
      () => fleet.gpuA.call('GET', '/v1/status'),
      (reply) => reply.json['ready'] === 'ready',
      'gpu-a ready',
    );
    await run(serve);
    await run(metrics);
    await run(logs);
    await run(up);

    const [upRefusal = [], ...others] = consoleBlocks(
      join(REPO_ROOT, 'docs', 'cli.md'),
      '## `svc up`',
    );
    expect(others).toEqual([]);
    const elsewhere = new ConsoleSession(app, env, substitutions);
    for (const step of upRefusal) {
      await elsewhere.refused(step, 2);
    }
  }, 240_000);
});
