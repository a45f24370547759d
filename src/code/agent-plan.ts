/**
 * What launching an agent takes, as data: the variables added to its environment, the arguments
 * put before the user's own, and the private files svc writes for it. Builders (opencode.ts,
 * pi.ts) return one; run-agent.ts carries it out.
 */
import type { AgentTarget } from './agent-target.ts';

export interface PrivateFile {
  readonly path: string;
  readonly content: string;
}

export interface AgentPlan {
  readonly env: Readonly<Record<string, string>>;
  readonly args: readonly string[];
  readonly files: readonly PrivateFile[];
}

export interface AgentContext {
  /** A directory of svc's own for this agent's private files (never the user's agent config). */
  readonly privateDir: string;
}

export interface AgentSpec {
  /** The name `--agent` and config.json's `harness` use. */
  readonly name: string;
  /** The program looked up on PATH. */
  readonly command: string;
  plan(target: AgentTarget, context: AgentContext): AgentPlan;
}

/** The key's variable and value, for the agent's environment only (never its argv). */
export function keyEnv(target: AgentTarget): Record<string, string> {
  return target.key === undefined ? {} : { [target.key.variable]: target.key.value };
}
