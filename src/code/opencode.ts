/**
 * opencode: configured through OPENCODE_CONFIG_CONTENT, the inline config opencode merges over
 * the user's own files (its config docs, "Precedence order"), so nothing of the user's is edited
 * (spec §1.1). The provider uses opencode's bundled `@ai-sdk/openai-compatible`; the key is an
 * `{env:VAR}` reference resolved by opencode from the environment svc hands it.
 */
import { type AgentPlan, type AgentSpec, keyEnv } from './agent-plan.ts';
import type { AgentTarget } from './agent-target.ts';

/**
 * opencode's per-model `limit` (its config schema needs both keys): the window and output cap svc
 * knows, an unknown output as 0, opencode's own value for a model with no limit.
 */
function opencodeLimit(target: AgentTarget, model: string): Record<string, unknown> {
  const limits = target.limits?.[model];
  if (limits?.context === undefined) {
    return {};
  }
  return { limit: { context: limits.context, output: limits.output ?? 0 } };
}

export function opencodeConfig(target: AgentTarget): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      [target.providerId]: {
        npm: '@ai-sdk/openai-compatible',
        name: target.label,
        options: {
          baseURL: target.baseUrl,
          ...(target.key === undefined ? {} : { apiKey: `{env:${target.key.variable}}` }),
        },
        models: Object.fromEntries(
          target.models.map((model) => [model, { name: model, ...opencodeLimit(target, model) }]),
        ),
      },
    },
    ...(target.defaultModel === undefined
      ? {}
      : { model: `${target.providerId}/${target.defaultModel}` }),
  };
}

export const OPENCODE: AgentSpec = {
  name: 'opencode',
  command: 'opencode',
  install: 'npm install -g opencode-ai',
  endpoint: '/chat/completions',
  needsModel: false,
  firstPrompt: {
    tokens: 12_122,
    source:
      "llama-server's prompt tokens for opencode's first request (default tools), on a one-GPU box",
  },
  plan(target: AgentTarget): AgentPlan {
    const config = opencodeConfig(target);
    return {
      env: { ...keyEnv(target), OPENCODE_CONFIG_CONTENT: JSON.stringify(config) },
      args: [],
      files: [],
      document: {
        name: 'opencode.json',
        content: `${JSON.stringify(config, null, 2)}\n`,
        env: 'OPENCODE_CONFIG_CONTENT',
      },
    };
  },
};
