/**
 * Pi (`@mariozechner/pi-coding-agent`): configured through a private agent directory
 * (PI_CODING_AGENT_DIR, in place of the user's ~/.pi/agent) holding a models.json that svc owns,
 * so the user's own Pi files are never edited (spec §1.1). Pi reads `apiKey` as the name of an
 * environment variable (its README, "API Key Resolution"); the default model goes on the command
 * line as `--provider`/`--model` (no secret there).
 */
import { join } from 'node:path';

import { type AgentContext, type AgentPlan, type AgentSpec, keyEnv, NO_KEY } from './agent-plan.ts';
import type { AgentTarget } from './agent-target.ts';

/** Pi lists only models whose provider has an apiKey, so an endpoint without one gets NO_KEY. */
export const PI_NO_KEY = NO_KEY;

export function piModels(target: AgentTarget): Record<string, unknown> {
  return {
    providers: {
      [target.providerId]: {
        baseUrl: target.baseUrl,
        api: 'openai-completions',
        apiKey: target.key?.variable ?? PI_NO_KEY,
        models: target.models.map((id) => {
          const limits = target.limits?.[id];
          return {
            id,
            name: `${id} (${target.label})`,
            // Pi's model fields (its README, "Custom Models"): the window and the reply cap.
            ...(limits?.context === undefined ? {} : { contextWindow: limits.context }),
            ...(limits?.output === undefined ? {} : { maxTokens: limits.output }),
          };
        }),
      },
    },
  };
}

export const PI: AgentSpec = {
  name: 'pi',
  command: 'pi',
  install: 'npm install -g @mariozechner/pi-coding-agent',
  endpoint: '/chat/completions',
  needsModel: false,
  plan(target: AgentTarget, context: AgentContext): AgentPlan {
    const models = `${JSON.stringify(piModels(target), null, 2)}\n`;
    return {
      env: { ...keyEnv(target), PI_CODING_AGENT_DIR: context.privateDir },
      args:
        target.defaultModel === undefined
          ? []
          : ['--provider', target.providerId, '--model', target.defaultModel],
      files: [{ path: join(context.privateDir, 'models.json'), content: models }],
      document: { name: 'models.json', content: models },
    };
  },
};
