/**
 * Codex (`@openai/codex`): configured through a private CODEX_HOME (svc's own directory, in place
 * of the user's ~/.codex) holding a config.toml svc owns, so the user's own Codex files are never
 * edited (spec §1.1). The config defines one model provider at the gateway on the Responses API
 * (`POST /v1/responses`, which Codex speaks and the gateway routes), its key named by `env_key`
 * and read by Codex from the environment svc hands it: never written to the file.
 */
import { join } from 'node:path';

import { type AgentContext, type AgentPlan, type AgentSpec, keyEnv } from './agent-plan.ts';
import type { AgentTarget } from './agent-target.ts';

/** A TOML basic string: JSON's escapes are a subset TOML accepts. */
function tomlString(value: string): string {
  return JSON.stringify(value);
}

/** Codex's root keys for the chosen model's window and reply cap (its config reference). */
function limitLines(target: AgentTarget): string[] {
  const limits =
    target.defaultModel === undefined ? undefined : target.limits?.[target.defaultModel];
  return [
    ...(limits?.context === undefined ? [] : [`model_context_window = ${limits.context}`]),
    ...(limits?.output === undefined ? [] : [`model_max_output_tokens = ${limits.output}`]),
  ];
}

export function codexConfig(target: AgentTarget): string {
  const provider = tomlString(target.providerId);
  const lines = [
    `# Codex through ${target.label}, written by svc code.`,
    // TOML: keys of the root table come before any [table].
    `model_provider = ${provider}`,
    ...(target.defaultModel === undefined ? [] : [`model = ${tomlString(target.defaultModel)}`]),
    ...limitLines(target),
    // An offline machine: no update check, no analytics.
    'check_for_update_on_startup = false',
    '',
    '[analytics]',
    'enabled = false',
    '',
    `[model_providers.${provider}]`,
    `name = ${tomlString(target.label)}`,
    `base_url = ${tomlString(target.baseUrl)}`,
    'wire_api = "responses"',
    ...(target.key === undefined ? [] : [`env_key = ${tomlString(target.key.variable)}`]),
  ];
  return `${lines.join('\n')}\n`;
}

export const CODEX: AgentSpec = {
  name: 'codex',
  command: 'codex',
  install: 'npm install -g @openai/codex',
  endpoint: '/responses',
  needsModel: true,
  firstPrompt: {
    tokens: 20_000,
    source:
      "about 20k: llama-server's prompt tokens for Codex's first request with the test suite's tiny model",
  },
  plan(target: AgentTarget, context: AgentContext): AgentPlan {
    const config = codexConfig(target);
    return {
      env: { ...keyEnv(target), CODEX_HOME: context.privateDir },
      args: [],
      files: [{ path: join(context.privateDir, 'config.toml'), content: config }],
      document: { name: 'config.toml', content: config },
    };
  },
};
