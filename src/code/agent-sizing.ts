/**
 * Sizing an agent to its model, pure: what one Svcfile's engine offers a request (its window, its
 * output cap, whether it chats at all), and the warning when the window is smaller than the
 * agent's own first prompt. The figures come from the Svcfile and the engine command it makes
 * (core/engines/request-window.ts); the agents' builders write them where each agent reads them.
 */
import { requestWindow } from '../core/engines/request-window.ts';
import { SvcError } from '../core/errors.ts';
import { parseContextSize } from '../core/project/context-size.ts';
import type { OpenedProject } from '../core/project/open-project.ts';
import type { AgentSpec } from './agent-plan.ts';
import type { ModelLimits } from './agent-target.ts';

export interface ModelFacts {
  readonly limits: ModelLimits;
  /** The engine flag that makes it answer no chat (embeddings, reranking), if any. */
  readonly nonChat?: string;
}

/** A Svcfile's OUTPUT as a number of tokens; a value that is none names its file and line. */
export function outputLimit(project: OpenedProject['project']): number | undefined {
  const output = project.output;
  if (output === undefined) {
    return undefined;
  }
  const tokens = parseContextSize(output.value);
  if (tokens === undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `${project.source}:${output.line}: OUTPUT "${output.value}" is not a positive number of tokens (write 4096 or 4k)`,
    );
  }
  return tokens;
}

/** What the engine a Svcfile starts offers one agent request. */
export function projectFacts(opened: Pick<OpenedProject, 'spec' | 'project'>): ModelFacts {
  const window = requestWindow(opened.spec);
  const output = outputLimit(opened.project);
  const limits: ModelLimits = {
    ...(window.context === undefined ? {} : { context: window.context }),
    ...(window.contextFrom === undefined ? {} : { contextFrom: window.contextFrom }),
    ...(output === undefined ? {} : { output }),
  };
  return window.nonChat === undefined ? { limits } : { limits, nonChat: window.nonChat };
}

/** An agent needs a model that chats: one whose engine serves only embeddings is refused. */
export function refuseNonChat(model: string, facts: ModelFacts, where: string): void {
  if (facts.nonChat !== undefined) {
    throw new SvcError(
      'ERR_USAGE',
      `${model} answers no chat (${where} starts its engine with ${facts.nonChat}, an embedding or reranking server): name a chat model with --model`,
    );
  }
}

/**
 * The line svc prints before launching when the model's window is smaller than the agent's
 * measured first prompt: the agent's first request would overflow it (llama-server answers 400).
 */
export function firstPromptWarning(
  agent: Pick<AgentSpec, 'name' | 'firstPrompt'>,
  model: string,
  limits: ModelLimits | undefined,
): string | undefined {
  const context = limits?.context;
  const prompt = agent.firstPrompt;
  if (context === undefined || prompt === undefined || context >= prompt.tokens) {
    return undefined;
  }
  const from = limits?.contextFrom === undefined ? '' : ` (${limits.contextFrom})`;
  return `svc code: warning: ${model} gives one request ${context} tokens${from}, less than ${agent.name}'s first prompt (about ${prompt.tokens} tokens): its first request will not fit; raise CONTEXT in the model's Svcfile`;
}
