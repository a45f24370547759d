/**
 * `svc code` end to end with the recording fake agent (test/fixtures/agents) first on PATH: the
 * built CLI against a real gateway and real daemons, checking what the agent was handed in both
 * modes (a project's model through the gateway; the generic provider listing GET /v1/models),
 * with --node (a real llama-server, and an optional-key mtplx engine from the fake engine), the
 * credential order, the agent choice, signal forwarding and the exit status.
 */
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FAKE_AGENT_DIR, opencodeConfigOf, readAgentRecord } from '../support/fakes/fake-agent.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { startProcess, type TestProcess } from '../support/processes/processes.ts';
import { FAKE_BIN_DIR, freePort, startTestDaemon, type TestDaemon } from '../support/svc/daemon.ts';
import {
  ENGINE_KEY,
  GATEWAY_TOKEN,
  NODE_TOKEN,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

interface Setup {
  dir: string;
  fleetPath: string;
  gatewayUrl: string;
  daemon: TestDaemon;
  gateway: TestProcess;
  record: string;
  /** Runs `svc code` with the fake agents first on PATH; `env` adds to (or unsets in) the base. */
  code(
    args: string[],
    options?: { env?: Record<string, string | undefined>; cwd?: string },
  ): ReturnType<typeof runSvc>;
}

/**
 * One daemon node `a` (its Svcfile a.svc: the tiny model as ALIAS tiny-a) and a gateway in front;
 * a second node `ghost` whose token variable is set nowhere (svc code must not care, docs/design.md
 * D24).
 */
async function setup(gatewayLines: (url: string) => string[]): Promise<Setup> {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  const enginePort = await freePort();
  const svcfileA = `PROVIDER llamacpp\nMODEL ${model}\nALIAS tiny-a\nBASEURL 127.0.0.1:${enginePort}\n`;
  await writeFile(join(dir, 'a.svc'), svcfileA);
  const daemon = await startTestDaemon({
    configDir: join(dir, 'config-a'),
    token: NODE_TOKEN,
  });
  const nodeLines = [
    'nodes:',
    '  - name: a',
    '    host: 127.0.0.1',
    `    port: ${new URL(daemon.url).port}`,
    '    tokenEnv: NODE_TOKEN',
    '    engineTokenEnv: ENGINE_KEY',
    '    file: a.svc',
    '    engine: {host: 127.0.0.1}',
    '  - name: ghost',
    '    host: 127.0.0.1',
    '    port: 9',
    '    tokenEnv: GHOST_TOKEN_SET_NOWHERE',
  ];
  const fleetPath = join(dir, 'fleet.yaml');
  await writeFile(fleetPath, `${nodeLines.join('\n')}\n`);
  await writeFile(join(dir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
  // The gateway itself needs every node's variable: it gets a fleet file without the ghost.
  const gatewayDir = join(dir, 'gateway');
  await mkdir(gatewayDir);
  await writeFile(join(gatewayDir, 'fleet.yaml'), `${nodeLines.slice(0, 8).join('\n')}\n`);
  await writeFile(join(gatewayDir, 'a.svc'), svcfileA);
  await writeFile(join(gatewayDir, '.env'), `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\n`);
  const { gateway, url: gatewayUrl } = await startTestGateway({
    cwd: gatewayDir,
    configDir: join(dir, 'config-gateway'),
  });
  await writeFile(
    fleetPath,
    `${['gateway:', ...gatewayLines(gatewayUrl).map((line) => `  ${line}`), ...nodeLines].join('\n')}\n`,
  );
  const record = join(dir, 'agent-record.json');
  return {
    dir,
    fleetPath,
    gatewayUrl,
    daemon,
    gateway,
    record,
    code: (args, options = {}) =>
      runSvc(['code', ...args], {
        cwd: options.cwd ?? dir,
        env: {
          PATH: testPath(FAKE_AGENT_DIR),
          HOME: join(dir, 'home'),
          SVC_CONFIG_DIR: join(dir, 'config-code'),
          FAKE_AGENT_RECORD: record,
          GW_TOKEN: undefined,
          OPENAI_API_KEY: undefined,
          ...options.env,
        },
      }),
  };
}

describe('svc code with the recording fake agent', () => {
  it('generic mode: a provider at the gateway keyed by its name, models from GET /v1/models, no default', async () => {
    const test = await setup((url) => [`url: ${url}`, 'tokenEnv: GW_TOKEN']);
    const run = await test.code(['-f', test.fleetPath, '--', 'run', 'hello there'], {
      env: { GW_TOKEN: GATEWAY_TOKEN },
    });
    expect(run.stderr).toContain(`opencode → ${test.gatewayUrl}/v1`);
    expect(run.status).toBe(0);
    const record = await readAgentRecord(test.record);
    expect(record.name).toBe('opencode');
    expect(record.args).toEqual(['run', 'hello there']);
    expect(record.env['GW_TOKEN']).toBe(GATEWAY_TOKEN);
    const name = new URL(test.gatewayUrl).host;
    const config = opencodeConfigOf(record);
    expect(config.model).toBeUndefined();
    expect(config.provider).toEqual({
      [name]: {
        npm: '@ai-sdk/openai-compatible',
        name: `Gateway (${name})`,
        options: { baseURL: `${test.gatewayUrl}/v1`, apiKey: '{env:GW_TOKEN}' },
        models: { 'tiny-a': { name: 'tiny-a' } },
      },
    });
    // The list came from the gateway, with the gateway token.
    expect(test.gateway.stderr()).toMatch(/method=GET path=\/v1\/models status=200/);
    // The token never appears in what svc printed, nor on the agent's command line.
    expect(`${run.stdout}${run.stderr}`).not.toContain(GATEWAY_TOKEN);
    expect(record.args.join(' ')).not.toContain(GATEWAY_TOKEN);
    expect(record.env['OPENCODE_CONFIG_CONTENT']).not.toContain(GATEWAY_TOKEN);
    // Nothing of the user's own agent config was written.
    await expect(readdir(join(test.dir, 'home'))).rejects.toThrow();
  });

  it("project mode: the target's ALIAS (else MODEL) is the default model, credential ENV line > process env > .env", async () => {
    const test = await setup((url) => [`url: ${url}`, 'tokenEnv: GW_TOKEN', 'name: lab']);
    const project = join(test.dir, 'project');
    await mkdir(project);
    const svcfile = (lines: string[]) =>
      writeFile(
        join(project, 'Svcfile'),
        ['PROVIDER llamacpp', 'MODEL org/repo', ...lines, ''].join('\n'),
      );
    await writeFile(join(project, '.env'), 'GW_TOKEN=from-dotenv\n');

    await svcfile(['ALIAS coder', 'ENV GW_TOKEN=from-env-line']);
    let run = await test.code(['project', '-f', test.fleetPath], {
      env: { GW_TOKEN: 'from-process' },
    });
    expect(run.status).toBe(0);
    let record = await readAgentRecord(test.record);
    expect(record.env['GW_TOKEN']).toBe('from-env-line');
    expect(opencodeConfigOf(record)).toMatchObject({
      model: 'svc/coder',
      provider: {
        svc: {
          name: 'svc gateway (lab)',
          options: { baseURL: `${test.gatewayUrl}/v1`, apiKey: '{env:GW_TOKEN}' },
          models: { coder: { name: 'coder' } },
        },
      },
    });

    await svcfile([]);
    run = await test.code(['project', '-f', test.fleetPath], { env: { GW_TOKEN: 'from-process' } });
    expect(run.status).toBe(0);
    record = await readAgentRecord(test.record);
    expect(record.env['GW_TOKEN']).toBe('from-process');
    expect(opencodeConfigOf(record).model).toBe('svc/org/repo');

    run = await test.code(['project', '-f', test.fleetPath]);
    expect(run.status).toBe(0);
    expect((await readAgentRecord(test.record)).env['GW_TOKEN']).toBe('from-dotenv');
  });

  it('uses a Svcfile beside the fleet file when no target is given', async () => {
    const test = await setup((url) => [`url: ${url}/`, 'tokenEnv: GW_TOKEN']);
    await writeFile(join(test.dir, 'Svcfile'), 'PROVIDER llamacpp\nMODEL org/beside\n');
    const run = await test.code([], { env: { GW_TOKEN: GATEWAY_TOKEN } });
    expect(run.status).toBe(0);
    const config = opencodeConfigOf(await readAgentRecord(test.record));
    expect(config.model).toBe('svc/org/beside');
    expect(config.provider['svc']?.options.baseURL).toBe(`${test.gatewayUrl}/v1`);
  });

  it('in a project directory, uses its Svcfile as svc serve would, not the one beside the fleet file', async () => {
    const test = await setup((url) => [`url: ${url}`, 'tokenEnv: GW_TOKEN']);
    await writeFile(join(test.dir, 'Svcfile'), 'PROVIDER llamacpp\nMODEL org/beside\n');
    const project = join(test.dir, 'project');
    await mkdir(project);
    await writeFile(join(project, 'Svcfile'), 'PROVIDER llamacpp\nMODEL org/here\nALIAS here\n');
    const run = await test.code(['-f', test.fleetPath], {
      cwd: project,
      env: { GW_TOKEN: GATEWAY_TOKEN },
    });
    expect(run.status).toBe(0);
    expect(opencodeConfigOf(await readAgentRecord(test.record)).model).toBe('svc/here');
  });

  it('OPENAI_API_KEY stands in when the section names no tokenEnv; a named one set nowhere is refused', async () => {
    const test = await setup((url) => [`url: ${url}`]);
    await writeFile(join(test.dir, 'Svcfile'), 'PROVIDER llamacpp\nMODEL org/repo\n');
    let run = await test.code([], { env: { OPENAI_API_KEY: 'openai-standin' } });
    expect(run.status).toBe(0);
    let record = await readAgentRecord(test.record);
    expect(record.env['OPENAI_API_KEY']).toBe('openai-standin');
    expect(opencodeConfigOf(record).provider['svc']?.options.apiKey).toBe('{env:OPENAI_API_KEY}');

    run = await test.code([]);
    expect(run.status).toBe(0);
    record = await readAgentRecord(test.record);
    expect(opencodeConfigOf(record).provider['svc']?.options.apiKey).toBeUndefined();

    await writeFile(
      test.fleetPath,
      (await readFile(test.fleetPath, 'utf8')).replace(
        'gateway:\n',
        'gateway:\n  tokenEnv: GW_TOKEN\n',
      ),
    );
    run = await test.code([]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('GW_TOKEN is not set (the gateway)');
  });

  it("--node points Pi at the node's engine with its engine key, through a private agent dir", async () => {
    const test = await setup((url) => [`url: ${url}`, 'tokenEnv: GW_TOKEN']);
    const started = await runSvc([
      'fleet',
      'start',
      'a',
      '-f',
      join(test.dir, 'gateway', 'fleet.yaml'),
    ]);
    expect(started.status).toBe(0);
    // Ready first: svc code asks the running engine for its window (GET /props).
    const status = await eventually(
      async () =>
        (await test.daemon.call('GET', '/v1/status')).json as {
          ready?: string;
          engine: { port: number; requiresKey?: boolean };
        },
      (reply) => reply.ready === 'ready',
      "node a's engine ready",
      { timeoutMs: 60_000 },
    );
    expect(status.engine.requiresKey).toBe(true);
    const props = (await (
      await fetch(`http://127.0.0.1:${status.engine.port}/props`, {
        headers: { authorization: `Bearer ${ENGINE_KEY}` },
      })
    ).json()) as { default_generation_settings: { n_ctx: number } };
    const configDir = join(test.dir, 'config-code');
    const run = await test.code(['--node', 'a', '--agent', 'pi', '--', '-p', 'hi'], {
      env: { SVC_CONFIG_DIR: configDir },
    });
    expect(run.status).toBe(0);
    const record = await readAgentRecord(test.record);
    expect(record.name).toBe('pi');
    expect(record.args).toEqual(['--provider', 'a', '--model', 'tiny-a', '-p', 'hi']);
    expect(record.env['PI_CODING_AGENT_DIR']).toBe(join(configDir, 'agents', 'pi'));
    expect(record.env['ENGINE_KEY']).toBe(ENGINE_KEY);
    expect(JSON.parse(record.files['models.json'] ?? '')).toEqual({
      providers: {
        a: {
          baseUrl: `http://127.0.0.1:${status.engine.port}/v1`,
          api: 'openai-completions',
          apiKey: 'ENGINE_KEY',
          models: [
            {
              id: 'tiny-a',
              name: 'tiny-a (svc node a)',
              contextWindow: props.default_generation_settings.n_ctx,
            },
          ],
        },
      },
    });
    expect(record.files['models.json']).not.toContain(ENGINE_KEY);
    expect(`${run.stdout}${run.stderr}`).not.toContain(ENGINE_KEY);
    // The engine really answers there, with that key.
    const reply = await fetch(`http://127.0.0.1:${status.engine.port}/v1/models`, {
      headers: { authorization: `Bearer ${ENGINE_KEY}` },
    });
    expect(reply.status).toBe(200);

    const ghost = await test.code(['--node', 'ghost']);
    expect(ghost.status).toBe(2);
    expect(ghost.stderr).toContain('GHOST_TOKEN_SET_NOWHERE is not set (node "ghost", tokenEnv)');
    const unknown = await test.code(['--node', 'b']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('--node "b" is not in');
    expect(unknown.stderr).toContain('nodes: a, ghost');
  });

  it('--node on an optional-key engine (mtplx) writes the OPENAI_API_KEY reference only when it is set', async () => {
    const dir = await tempDir();
    const enginePort = await freePort();
    await writeFile(
      join(dir, 'm.svc'),
      `PROVIDER mtplx\nMODEL org/fake-mtplx\nBASEURL 127.0.0.1:${enginePort}\n`,
    );
    const daemon = await startTestDaemon({
      configDir: join(dir, 'config-m'),
      token: NODE_TOKEN,
      path: [FAKE_BIN_DIR],
    });
    const fleetPath = join(dir, 'fleet.yaml');
    await writeFile(
      fleetPath,
      [
        'nodes:',
        '  - name: m',
        '    host: 127.0.0.1',
        `    port: ${new URL(daemon.url).port}`,
        '    tokenEnv: NODE_TOKEN',
        '    file: m.svc',
        '    engine: {host: 127.0.0.1}',
        '',
      ].join('\n'),
    );
    const env = { NODE_TOKEN, PATH: testPath(FAKE_AGENT_DIR) };
    expect((await runSvc(['fleet', 'start', 'm', '-f', fleetPath], { env })).status).toBe(0);
    const record = join(dir, 'record.json');
    const code = (openaiKey: string | undefined) =>
      runSvc(['code', '--node', 'm', '-f', fleetPath], {
        cwd: dir,
        env: {
          ...env,
          SVC_CONFIG_DIR: join(dir, 'config-code'),
          FAKE_AGENT_RECORD: record,
          OPENAI_API_KEY: openaiKey,
        },
      });

    expect((await code(undefined)).status).toBe(0);
    let config = opencodeConfigOf(await readAgentRecord(record));
    expect(config.provider['m']?.options).toEqual({
      baseURL: `http://127.0.0.1:${enginePort}/v1`,
    });

    expect((await code('optional-key')).status).toBe(0);
    const recorded = await readAgentRecord(record);
    config = opencodeConfigOf(recorded);
    expect(config.provider['m']?.options.apiKey).toBe('{env:OPENAI_API_KEY}');
    expect(recorded.env['OPENAI_API_KEY']).toBe('optional-key');
  });

  it("the harness setting picks the agent, and svc exits with the agent's status", async () => {
    const test = await setup((url) => [`url: ${url}`]);
    await writeFile(join(test.dir, 'Svcfile'), 'PROVIDER llamacpp\nMODEL org/repo\n');
    const configDir = join(test.dir, 'config-harness');
    await mkdir(configDir);
    await writeFile(join(configDir, 'config.json'), '{"harness": "pi"}\n');
    const run = await test.code([], { env: { SVC_CONFIG_DIR: configDir, FAKE_AGENT_EXIT: '5' } });
    expect(run.status).toBe(5);
    expect((await readAgentRecord(test.record)).name).toBe('pi');

    const unknown = await test.code(['--agent', 'claud']);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain(
      '--agent names "claud", which svc cannot launch (did you mean "claude"?): use "opencode", "pi", "claude", "codex"',
    );

    const missing = await test.code([], { env: { PATH: dirname(process.execPath) } });
    expect(missing.status).toBe(2);
    expect(missing.stderr).toContain('opencode is not on PATH');
  });

  it('forwards SIGTERM to the agent and passes its exit status on', async () => {
    const test = await setup((url) => [`url: ${url}`]);
    await writeFile(join(test.dir, 'Svcfile'), 'PROVIDER llamacpp\nMODEL org/repo\n');
    const svc = startProcess(SVC, ['code'], {
      cwd: test.dir,
      env: {
        ...process.env,
        PATH: testPath(FAKE_AGENT_DIR),
        SVC_CONFIG_DIR: join(test.dir, 'config-code'),
        SVC_ALIAS: '',
        FAKE_AGENT_RECORD: test.record,
        FAKE_AGENT_WAIT: '1',
      },
    });
    await svc.waitFor(/fake agent ready/);
    process.kill(svc.pid, 'SIGTERM');
    expect(await svc.exited()).toBe(7);
    expect((await readAgentRecord(test.record)).signals).toEqual(['SIGTERM']);
  });
});
