import { describe, expect, it } from 'vitest';

import type { AgentTarget } from './agent-target.ts';
import { AGENTS, pickAgent, renderAgentList } from './agents.ts';
import { OPENCODE, opencodeConfig } from './opencode.ts';
import { PI, PI_NO_KEY, piModels } from './pi.ts';

const SECRET = 'gw-secret-9f';

const projectTarget: AgentTarget = {
  providerId: 'svc',
  label: 'svc gateway (lab)',
  baseUrl: 'http://gw:4000/v1',
  models: ['tiny'],
  defaultModel: 'tiny',
  key: { variable: 'GW_TOKEN', value: SECRET },
};

const genericTarget: AgentTarget = {
  providerId: 'gw:4000',
  label: 'Gateway (gw:4000)',
  baseUrl: 'http://gw:4000/v1',
  models: ['a', 'b'],
};

const context = { privateDir: '/cfg/agents/x' };

describe('opencode', () => {
  it('gets the provider inline, the key as an {env:VAR} reference and the default model', () => {
    expect(opencodeConfig(projectTarget)).toEqual({
      $schema: 'https://opencode.ai/config.json',
      provider: {
        svc: {
          npm: '@ai-sdk/openai-compatible',
          name: 'svc gateway (lab)',
          options: { baseURL: 'http://gw:4000/v1', apiKey: '{env:GW_TOKEN}' },
          models: { tiny: { name: 'tiny' } },
        },
      },
      model: 'svc/tiny',
    });
  });

  it('the generic provider: every listed model, no default model, no key reference', () => {
    const config = opencodeConfig(genericTarget);
    expect(config['model']).toBeUndefined();
    expect(config['provider']).toEqual({
      'gw:4000': {
        npm: '@ai-sdk/openai-compatible',
        name: 'Gateway (gw:4000)',
        options: { baseURL: 'http://gw:4000/v1' },
        models: { a: { name: 'a' }, b: { name: 'b' } },
      },
    });
  });

  it('puts the key only in the environment, never in argv or the config text', () => {
    const plan = OPENCODE.plan(projectTarget, context);
    expect(plan.env['GW_TOKEN']).toBe(SECRET);
    expect(plan.args).toEqual([]);
    expect(plan.files).toEqual([]);
    expect(plan.env['OPENCODE_CONFIG_CONTENT']).not.toContain(SECRET);
    expect(JSON.parse(plan.env['OPENCODE_CONFIG_CONTENT'] ?? '')).toEqual(
      opencodeConfig(projectTarget),
    );
  });
});

describe('pi', () => {
  it('gets a private agent dir with models.json naming the key variable', () => {
    const plan = PI.plan(projectTarget, context);
    expect(plan.env).toEqual({ GW_TOKEN: SECRET, PI_CODING_AGENT_DIR: '/cfg/agents/x' });
    expect(plan.args).toEqual(['--provider', 'svc', '--model', 'tiny']);
    expect(plan.files.map((file) => file.path)).toEqual(['/cfg/agents/x/models.json']);
    expect(plan.files[0]?.content).not.toContain(SECRET);
    expect(JSON.parse(plan.files[0]?.content ?? '')).toEqual(piModels(projectTarget));
    expect(piModels(projectTarget)).toEqual({
      providers: {
        svc: {
          baseUrl: 'http://gw:4000/v1',
          api: 'openai-completions',
          apiKey: 'GW_TOKEN',
          models: [{ id: 'tiny', name: 'tiny (svc gateway (lab))' }],
        },
      },
    });
  });

  it('the generic provider: no default model on the command line, a placeholder key', () => {
    const plan = PI.plan(genericTarget, context);
    expect(plan.args).toEqual([]);
    const models = piModels(genericTarget)['providers'] as Record<string, { apiKey: string }>;
    expect(models['gw:4000']?.apiKey).toBe(PI_NO_KEY);
  });
});

describe('pickAgent', () => {
  it('prefers --agent, then the harness setting, then opencode', () => {
    expect(pickAgent('pi', 'opencode', 'c.json').name).toBe('pi');
    expect(pickAgent(undefined, 'pi', 'c.json').name).toBe('pi');
    expect(pickAgent(undefined, undefined, 'c.json').name).toBe('opencode');
  });

  it('refuses an unknown agent, naming where it came from and the known ones', () => {
    expect(() => pickAgent('claud', undefined, 'c.json')).toThrow(
      '--agent names "claud", which svc cannot launch (did you mean "claude"?): use "opencode", "pi", "claude", "codex"',
    );
    expect(() => pickAgent(undefined, 'aider', '/c/config.json')).toThrow(
      '"harness" in /c/config.json names "aider", which svc cannot launch: use',
    );
  });

  it('has one row per agent, each with its own name', () => {
    expect(AGENTS.map((agent) => agent.name)).toEqual(['opencode', 'pi', 'claude', 'codex']);
  });
});

describe('renderAgentList', () => {
  it('shows each agent, the endpoint it speaks, and where it is or how to install it', () => {
    const found: Record<string, string> = { pi: '/usr/bin/pi', codex: '/opt/bin/codex' };
    const text = renderAgentList((command) => found[command], 'pi');
    expect(text.split('\n')).toEqual([
      'AGENT         SPEAKS                STATUS',
      'opencode      /v1/chat/completions  not installed: npm install -g opencode-ai',
      'pi (default)  /v1/chat/completions  installed: /usr/bin/pi',
      'claude        /v1/messages          not installed: npm install -g @anthropic-ai/claude-code',
      'codex         /v1/responses         installed: /opt/bin/codex',
      '',
    ]);
  });
});
