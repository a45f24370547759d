/** Claude Code (environment only) and Codex (a private CODEX_HOME/config.toml), as plans. */
import { describe, expect, it } from 'vitest';

import type { AgentTarget } from './agent-target.ts';
import { anthropicBaseUrl, CLAUDE, claudeEnvFile } from './claude.ts';
import { CODEX, codexConfig } from './codex.ts';

const SECRET = 'gw-secret-9f';
const target: AgentTarget = {
  providerId: 'lab',
  label: 'Gateway (lab)',
  baseUrl: 'http://gw:4000/v1',
  models: ['tiny', 'big'],
  defaultModel: 'tiny',
  key: { variable: 'GW_TOKEN', value: SECRET },
};
const context = { privateDir: '/cfg/agents/x' };

describe('claude', () => {
  it('gets the base URL without /v1, the key as the bearer token and every model role', () => {
    const plan = CLAUDE.plan(target, context);
    expect(plan.env).toEqual({
      ANTHROPIC_BASE_URL: 'http://gw:4000',
      ANTHROPIC_MODEL: 'tiny',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'tiny',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'tiny',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'tiny',
      ANTHROPIC_SMALL_FAST_MODEL: 'tiny',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_AUTOUPDATER: '1',
      ANTHROPIC_AUTH_TOKEN: SECRET,
    });
    expect(plan.unsetEnv).toContain('ANTHROPIC_API_KEY');
    expect(plan.args).toEqual([]);
    expect(plan.files).toEqual([]);
    expect(CLAUDE.needsModel).toBe(true);
  });

  it('keeps a path prefix, and a tokenless gateway gets the placeholder credential', () => {
    expect(anthropicBaseUrl('https://gw.example/openai/v1')).toBe('https://gw.example/openai');
    const { key: _key, ...tokenless } = target;
    expect(CLAUDE.plan(tokenless, context).env['ANTHROPIC_AUTH_TOKEN']).toBe('no-key');
  });

  it('its config document is a sourceable env file naming the key variable, never the key', () => {
    const text = claudeEnvFile(target);
    expect(text).toContain('export ANTHROPIC_AUTH_TOKEN="$GW_TOKEN"\n');
    expect(text).toContain('export ANTHROPIC_BASE_URL=http://gw:4000\n');
    expect(text).toContain('unset ANTHROPIC_API_KEY\n');
    expect(text).not.toContain(SECRET);
    expect(CLAUDE.plan(target, context).document.content).toBe(text);
  });
});

describe('codex', () => {
  it('gets a private CODEX_HOME with a Responses-API provider whose env_key names the key', () => {
    const plan = CODEX.plan(target, context);
    expect(plan.env).toEqual({ GW_TOKEN: SECRET, CODEX_HOME: '/cfg/agents/x' });
    expect(plan.files).toEqual([
      { path: '/cfg/agents/x/config.toml', content: codexConfig(target) },
    ]);
    expect(codexConfig(target).split('\n')).toEqual([
      '# Codex through Gateway (lab), written by svc code.',
      'model_provider = "lab"',
      'model = "tiny"',
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[model_providers."lab"]',
      'name = "Gateway (lab)"',
      'base_url = "http://gw:4000/v1"',
      'wire_api = "responses"',
      'env_key = "GW_TOKEN"',
      '',
    ]);
    expect(JSON.stringify(plan.files) + plan.args.join(' ')).not.toContain(SECRET);
  });

  it('quotes provider ids TOML would not take bare, and a tokenless gateway has no env_key', () => {
    const { key: _key, defaultModel: _model, ...generic } = { ...target, providerId: 'gw:4000' };
    const text = codexConfig(generic);
    expect(text).toContain('model_provider = "gw:4000"\n');
    expect(text).toContain('[model_providers."gw:4000"]\n');
    expect(text).not.toContain('env_key');
    expect(text).not.toContain('model = ');
  });
});
