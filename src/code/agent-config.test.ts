/** `svc code --config`: the plan as text to keep, the key only as its variable. */
import { describe, expect, it } from 'vitest';

import { renderAgentConfig, shellWord } from './agent-config.ts';
import type { AgentTarget } from './agent-target.ts';
import { CLAUDE } from './claude.ts';
import { CODEX } from './codex.ts';
import { OPENCODE } from './opencode.ts';

const SECRET = 'gw-secret-9f';
const target: AgentTarget = {
  providerId: 'lab',
  label: 'Gateway (lab)',
  baseUrl: 'http://gw:4000/v1',
  models: ['tiny'],
  defaultModel: 'tiny',
  key: { variable: 'GW_TOKEN', value: SECRET },
};
const context = { privateDir: '/cfg/agents/x' };

describe('renderAgentConfig', () => {
  it('shows the environment with the key as its variable, the command line and the document', () => {
    const text = renderAgentConfig(CLAUDE, CLAUDE.plan(target, context), target);
    expect(text).toContain('# claude sends model requests to http://gw:4000/v1/messages\n');
    expect(text).toContain('export ANTHROPIC_AUTH_TOKEN="$GW_TOKEN"\n');
    expect(text).toContain('export ANTHROPIC_MODEL=tiny\n');
    expect(text).toContain('# The key: GW_TOKEN must hold the token where claude runs.\n');
    expect(text).toContain('\n# claude.env:\n# Claude Code through Gateway (lab)');
    // The document is the environment: printed once, not also as an environment section.
    expect(text).not.toContain('# Its environment:');
    expect(text.match(/export ANTHROPIC_MODEL=/g)).toHaveLength(1);
    expect(text).not.toContain(SECRET);
  });

  it("names where svc writes a private file, and an inline document's variable", () => {
    const codex = renderAgentConfig(CODEX, CODEX.plan(target, context), target);
    expect(codex).toContain('# Its environment:\nexport CODEX_HOME=/cfg/agents/x\n');
    expect(codex).toContain('# config.toml (svc code writes it to /cfg/agents/x/config.toml):\n');
    expect(codex).not.toContain('export GW_TOKEN');
    expect(codex).not.toContain(SECRET);
    const opencode = renderAgentConfig(OPENCODE, OPENCODE.plan(target, context), target);
    expect(opencode).toContain('export OPENCODE_CONFIG_CONTENT="$(cat opencode.json)"\n');
    expect(opencode).toContain('"apiKey": "{env:GW_TOKEN}"');
    expect(opencode).not.toContain(SECRET);
  });

  it('quotes shell words that need it', () => {
    expect(shellWord('http://gw:4000')).toBe('http://gw:4000');
    expect(shellWord("it's")).toBe(`'it'\\''s'`);
    expect(shellWord('a b')).toBe(`'a b'`);
  });
});
