/**
 * Claude Code (`@anthropic-ai/claude-code`): configured only through its documented environment
 * (code.claude.com/docs/en/env-vars), so nothing under the user's ~/.claude is edited (spec §1.1).
 * It speaks Anthropic's Messages API (`POST /v1/messages`), which the gateway routes like any
 * model-addressed endpoint and llama-server serves. The gateway token goes in
 * ANTHROPIC_AUTH_TOKEN, which Claude Code sends as `Authorization: Bearer`, the header the
 * gateway checks; every model role is the chosen model, because Claude Code otherwise asks for
 * Claude models by name (its Haiku role for titles and summaries) that no fleet serves.
 */
import { shellWord } from './agent-config.ts';
import { type AgentPlan, type AgentSpec, NO_KEY } from './agent-plan.ts';
import type { AgentTarget } from './agent-target.ts';

/** Claude Code adds `/v1/messages` itself, so its base URL is the gateway's without `/v1`. */
export function anthropicBaseUrl(baseUrl: string): string {
  return baseUrl.replace(/\/v1$/, '');
}

/** The model roles Claude Code reads, each set to the chosen model. */
export const CLAUDE_MODEL_ROLES = [
  'ANTHROPIC_MODEL',
  'ANTHROPIC_DEFAULT_OPUS_MODEL',
  'ANTHROPIC_DEFAULT_SONNET_MODEL',
  'ANTHROPIC_DEFAULT_HAIKU_MODEL',
  // The older name of the Haiku role, still read by the releases that accept Node 20.
  'ANTHROPIC_SMALL_FAST_MODEL',
] as const;

/**
 * Credentials and provider switches that would send Claude Code elsewhere or add a second
 * credential (ANTHROPIC_API_KEY goes out as `x-api-key`, to the gateway): removed from its
 * environment for this run.
 */
export const CLAUDE_UNSET = [
  'ANTHROPIC_API_KEY',
  'CLAUDE_CODE_USE_BEDROCK',
  'CLAUDE_CODE_USE_VERTEX',
  'CLAUDE_CODE_USE_FOUNDRY',
] as const;

/** Everything but the credential, in the order `--config` prints it. */
export function claudeEnv(target: AgentTarget): Record<string, string> {
  const model = target.defaultModel;
  // Claude Code takes a reply cap but no window size from its environment.
  const output = model === undefined ? undefined : target.limits?.[model]?.output;
  return {
    ANTHROPIC_BASE_URL: anthropicBaseUrl(target.baseUrl),
    ...(model === undefined
      ? {}
      : Object.fromEntries(CLAUDE_MODEL_ROLES.map((role) => [role, model]))),
    ...(output === undefined ? {} : { CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(output) }),
    // An offline machine: no telemetry, error reports, update checks or other side traffic.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
  };
}

/** The environment as a file a shell can source; the key as the variable that holds it. */
export function claudeEnvFile(target: AgentTarget): string {
  const credential = target.key === undefined ? NO_KEY : `"$${target.key.variable}"`;
  const lines = [
    `# Claude Code through ${target.label}: source this file, then run claude.`,
    ...CLAUDE_UNSET.map((name) => `unset ${name}`),
    ...Object.entries(claudeEnv(target)).map(
      ([name, value]) => `export ${name}=${shellWord(value)}`,
    ),
    `export ANTHROPIC_AUTH_TOKEN=${credential}`,
  ];
  return `${lines.join('\n')}\n`;
}

export const CLAUDE: AgentSpec = {
  name: 'claude',
  command: 'claude',
  install: 'npm install -g @anthropic-ai/claude-code',
  endpoint: '/messages',
  needsModel: true,
  firstPrompt: {
    tokens: 28_000,
    source:
      "about 28k: llama-server's prompt tokens for Claude Code's first request with the test suite's tiny model",
  },
  plan(target: AgentTarget): AgentPlan {
    return {
      env: {
        ...claudeEnv(target),
        // Claude Code insists on a credential; a tokenless gateway ignores the placeholder.
        ANTHROPIC_AUTH_TOKEN: target.key?.value ?? NO_KEY,
      },
      unsetEnv: CLAUDE_UNSET,
      args: [],
      files: [],
      document: { name: 'claude.env', content: claudeEnvFile(target), isEnvironment: true },
    };
  },
};
