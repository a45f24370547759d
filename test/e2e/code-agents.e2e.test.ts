/**
 * `svc code --agent claude|codex` end to end with the recording fake agents
 * (test/fixtures/agents) first on PATH, against a real gateway in front of two real daemons: node
 * `a` (the tiny model on a real llama-server, ALIAS tiny-a) and node `b` (stopped, so its model
 * tiny-b is listed asleep). Checks what each agent was handed in every mode (a project's model,
 * --model on the generic provider, --node), --config and --write, the --model and --yes
 * refusals, --list, and the picker in a real terminal (tmux).
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';

import { describe, expect, it } from 'vitest';

import { FAKE_AGENT_DIR, readAgentRecord } from '../support/fakes/fake-agent.ts';
import { writeTinyModel } from '../support/models/tiny-model.ts';
import { testPath } from '../support/prerequisites/engines.ts';
import { alive } from '../support/processes/process-tree.ts';
import { startTmux } from '../support/screens/tmux.ts';
import { freePort, startTestDaemon, type TestDaemon } from '../support/svc/daemon.ts';
import {
  ENGINE_KEY,
  GATEWAY_TOKEN,
  NODE_TOKEN,
  startTestGateway,
} from '../support/svc/gateway-fleet.ts';
import { runSvc, SVC, tempDir } from '../support/svc/svc.ts';
import { eventually } from '../support/time/eventually.ts';

interface Fleet {
  dir: string;
  fleetPath: string;
  gatewayUrl: string;
  daemonA: TestDaemon;
  record: string;
  configDir: string;
  code(args: string[], env?: Record<string, string | undefined>): ReturnType<typeof runSvc>;
}

/** Two daemon nodes and a gateway; node a runs, node b sleeps; GW_TOKEN in the fleet's .env. */
async function startFleet(): Promise<Fleet> {
  const dir = await tempDir();
  const model = await writeTinyModel(join(dir, 'tiny.gguf'));
  const svcfile = async (name: string, alias: string) => {
    const text = `PROVIDER llamacpp\nMODEL ${model}\nALIAS ${alias}\nBASEURL 127.0.0.1:${await freePort()}\n`;
    await writeFile(join(dir, `${name}.svc`), text);
  };
  await svcfile('a', 'tiny-a');
  await svcfile('b', 'tiny-b');
  const daemons = await Promise.all(
    ['a', 'b'].map((name) =>
      startTestDaemon({ configDir: join(dir, `config-${name}`), token: NODE_TOKEN }),
    ),
  );
  const nodeLines = daemons.flatMap((daemon, index) => [
    `  - name: ${index === 0 ? 'a' : 'b'}`,
    '    host: 127.0.0.1',
    `    port: ${new URL(daemon.url).port}`,
    '    tokenEnv: NODE_TOKEN',
    '    engineTokenEnv: ENGINE_KEY',
    `    file: ${index === 0 ? 'a' : 'b'}.svc`,
    '    engine: {host: 127.0.0.1}',
  ]);
  const fleetPath = join(dir, 'fleet.yaml');
  await writeFile(fleetPath, `nodes:\n${nodeLines.join('\n')}\n`);
  await writeFile(
    join(dir, '.env'),
    `NODE_TOKEN=${NODE_TOKEN}\nENGINE_KEY=${ENGINE_KEY}\nGW_TOKEN=${GATEWAY_TOKEN}\n`,
  );
  // Node a starts before the gateway does, so the gateway's first look at the fleet (the one the
  // picker's GET /v1/models reads) already finds tiny-a running, with no wait for a refresh.
  // Matched whole, so a failure shows what svc said.
  expect(await runSvc(['fleet', 'start', 'a', '-f', fleetPath])).toMatchObject({ status: 0 });
  const { url: gatewayUrl } = await startTestGateway({
    cwd: dir,
    configDir: join(dir, 'config-gateway'),
  });
  // The section names the gateway now listening (the gateway itself read the file at startup).
  await writeFile(
    fleetPath,
    `gateway:\n  url: ${gatewayUrl}\n  tokenEnv: GW_TOKEN\n  name: lab\nnodes:\n${nodeLines.join('\n')}\n`,
  );
  const record = join(dir, 'agent-record.json');
  const configDir = join(dir, 'config-code');
  const [daemonA] = daemons as [TestDaemon, TestDaemon];
  return {
    dir,
    fleetPath,
    gatewayUrl,
    daemonA,
    record,
    configDir,
    code: (args, env = {}) =>
      runSvc(['code', '-f', fleetPath, ...args], {
        cwd: dir,
        env: {
          PATH: testPath(FAKE_AGENT_DIR),
          HOME: join(dir, 'home'),
          SVC_CONFIG_DIR: configDir,
          FAKE_AGENT_RECORD: record,
          GW_TOKEN: undefined,
          OPENAI_API_KEY: undefined,
          ANTHROPIC_API_KEY: 'sk-ant-users-own',
          ...env,
        },
      }),
  };
}

describe('svc code --agent claude|codex with the recording fake agents', () => {
  it('configures each agent in every mode; --config, --write, --model, --yes and --list', async () => {
    const fleet = await startFleet();
    const gateway = fleet.gatewayUrl;

    // claude, --model on the generic provider: the env only, every role on the model.
    let run = await fleet.code(['--agent', 'claude', '--model', 'tiny-b', '--', '-p', 'hi']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`claude → ${gateway}/v1 (Gateway (lab), model tiny-b)`);
    let record = await readAgentRecord(fleet.record);
    expect(record.name).toBe('claude');
    expect(record.args).toEqual(['-p', 'hi']);
    expect(record.env).toMatchObject({
      ANTHROPIC_BASE_URL: gateway,
      ANTHROPIC_AUTH_TOKEN: GATEWAY_TOKEN,
      ANTHROPIC_MODEL: 'tiny-b',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'tiny-b',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'tiny-b',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'tiny-b',
      ANTHROPIC_SMALL_FAST_MODEL: 'tiny-b',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
    });
    // The user's own Anthropic key is not sent to the gateway; nothing under HOME was written.
    expect(record.env['ANTHROPIC_API_KEY']).toBeUndefined();
    await expect(stat(join(fleet.dir, 'home'))).rejects.toThrow();

    // claude, project mode: the Svcfile's ALIAS is the model.
    run = await fleet.code(['a.svc', '--agent', 'claude']);
    expect(run.status, run.stderr).toBe(0);
    record = await readAgentRecord(fleet.record);
    expect(record.env['ANTHROPIC_MODEL']).toBe('tiny-a');

    // codex, --model: a private CODEX_HOME whose config.toml names the key's variable only.
    run = await fleet.code(['--agent', 'codex', '--model', 'tiny-a', '--', 'exec', 'hi']);
    expect(run.status, run.stderr).toBe(0);
    record = await readAgentRecord(fleet.record);
    expect(record.name).toBe('codex');
    expect(record.args).toEqual(['exec', 'hi']);
    expect(record.env['CODEX_HOME']).toBe(join(fleet.configDir, 'agents', 'codex'));
    expect(record.env['GW_TOKEN']).toBe(GATEWAY_TOKEN);
    const toml = record.files['config.toml'] ?? '';
    expect(toml).toContain('model_provider = "lab"\nmodel = "tiny-a"\n');
    expect(toml).toContain(`base_url = "${gateway}/v1"\nwire_api = "responses"\n`);
    expect(toml).toContain('env_key = "GW_TOKEN"');
    expect(toml).not.toContain(GATEWAY_TOKEN);

    // codex, --node: the node's engine, its engine key's variable.
    run = await fleet.code(['--node', 'a', '--agent', 'codex']);
    expect(run.status, run.stderr).toBe(0);
    record = await readAgentRecord(fleet.record);
    const status = (await fleet.daemonA.call('GET', '/v1/status')).json as {
      engine: { port: number };
    };
    expect(record.files['config.toml']).toContain(
      `base_url = "http://127.0.0.1:${status.engine.port}/v1"`,
    );
    expect(record.files['config.toml']).toContain('env_key = "ENGINE_KEY"');
    expect(record.env['ENGINE_KEY']).toBe(ENGINE_KEY);

    // --model checked against GET /v1/models (and the node's model with --node).
    run = await fleet.code(['--agent', 'codex', '--model', 'tiny-c']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('--model "tiny-c" is not a model the gateway');
    expect(run.stderr).toContain('(did you mean "tiny-a"?): it lists tiny-a, tiny-b');
    run = await fleet.code(['--node', 'a', '--model', 'tiny-b']);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain('is not a model node "a" lists');

    // Off a terminal (and with --yes) nothing asks: claude and codex then need a model named.
    for (const args of [
      ['--agent', 'codex'],
      ['--agent', 'claude', '--yes'],
    ]) {
      run = await fleet.code(args);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(
        'needs a model: pass --model <id> (the gateway lists tiny-a, tiny-b)',
      );
    }

    // --config prints what the agent would get, the key only as its variable; launches nothing.
    await writeFile(fleet.record, '{}');
    run = await fleet.code(['--agent', 'claude', '--model', 'tiny-a', '--config']);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toContain(`# claude sends model requests to ${gateway}/v1/messages`);
    expect(run.stdout).toContain('export ANTHROPIC_AUTH_TOKEN="$GW_TOKEN"');
    expect(run.stdout).toContain(`export ANTHROPIC_BASE_URL=${gateway}`);
    expect(`${run.stdout}${run.stderr}`).not.toContain(GATEWAY_TOKEN);
    expect(await readFile(fleet.record, 'utf8')).toBe('{}');

    // --write saves the agent's config document where the user names it, never over a file.
    const kept = join(fleet.dir, 'kept', 'config.toml');
    run = await fleet.code(['--agent', 'codex', '--model', 'tiny-a', '--config', '--write', kept]);
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toContain(`wrote config.toml for codex to ${kept}`);
    expect(await readFile(kept, 'utf8')).toBe(toml);
    run = await fleet.code(['--agent', 'codex', '--model', 'tiny-a', '--config', '--write', kept]);
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`--write ${kept}: the file exists`);
    expect(await readFile(kept, 'utf8')).toBe(toml);

    // --list: every agent, where it is, or how to install it; a missing one names its package.
    const onlyNode = dirname(process.execPath);
    run = await fleet.code(['--list']);
    expect(run.stdout).toMatch(
      /claude\s+\/v1\/messages\s+installed: .*test\/fixtures\/agents\/claude/,
    );
    expect(run.stdout).toMatch(/codex\s+\/v1\/responses\s+installed: /);
    run = await fleet.code(['--list'], { PATH: onlyNode });
    expect(run.stdout).toMatch(
      /claude\s+\/v1\/messages\s+not installed: npm install -g @anthropic-ai\/claude-code/,
    );
    run = await fleet.code(['--agent', 'codex', '--model', 'tiny-a'], { PATH: onlyNode });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(
      'codex is not on PATH: install it with npm install -g @openai/codex',
    );
  });

  it('on a terminal, a picker lists running models first and marks sleeping ones', async () => {
    const fleet = await startFleet();
    const home = join(fleet.dir, 'home');
    await mkdir(home);
    const env = {
      PATH: testPath(FAKE_AGENT_DIR),
      HOME: home,
      SVC_CONFIG_DIR: fleet.configDir,
      FAKE_AGENT_RECORD: fleet.record,
      // The fake says when it has recorded, then waits for the terminal's Ctrl+C.
      FAKE_AGENT_WAIT: '1',
    };
    const words = [
      'env',
      ...Object.entries(env).map(([name, value]) => `${name}=${value}`),
      process.execPath,
      SVC,
      'code',
      '-f',
      fleet.fleetPath,
      '--agent',
      'codex',
    ];
    const terminal = await startTmux(words.map((word) => `'${word}'`).join(' '), 100, 20);
    const screen = await terminal.waitFor(/Model \[1-2, Enter for 1\]:/);
    expect(screen).toMatch(
      /1\) tiny-a\s*\n\s*2\) tiny-b\s+\(asleep: the first request wakes a node\)/,
    );
    await terminal.keys('2', 'Enter');
    await terminal.waitFor(/fake agent ready/);
    await terminal.keys('C-c');
    // svc exits once its agent has: its process is gone or a zombie. (tmux's "Pane is dead" line
    // is not waited for: on a loaded machine tmux was seen to leave the exited svc unreaped.)
    await eventually(
      () => Promise.resolve(alive([terminal.pid])),
      (left) => left.length === 0,
      'svc exiting after Ctrl+C',
    );
    const record = await readAgentRecord(fleet.record);
    expect(record.name).toBe('codex');
    expect(record.signals[0]).toBe('SIGINT');
    expect(record.files['config.toml']).toContain('model = "tiny-b"');
  });
});
