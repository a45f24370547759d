/**
 * What launching an agent takes, as data: the variables added to (and removed from) its
 * environment, the arguments put before the user's own, the private files svc writes for it, and
 * the one configuration document a user would keep for a permanent setup (`svc code --config`).
 * Builders (opencode.ts, pi.ts, claude.ts, codex.ts) return one; run-agent.ts carries it out.
 */
import type { AgentTarget } from './agent-target.ts';

export interface PrivateFile {
  readonly path: string;
  readonly content: string;
}

/** The agent's configuration as one document: a file's content, or a variable's value. */
export interface AgentDocument {
  /** What a user would save it as (`opencode.json`, `config.toml`, …). */
  readonly name: string;
  readonly content: string;
  /** The variable that carries it when svc launches the agent, if it goes by environment. */
  readonly env?: string;
  /** It is the environment itself, as a file to source (Claude Code's whole configuration). */
  readonly isEnvironment?: boolean;
}

export interface AgentPlan {
  readonly env: Readonly<Record<string, string>>;
  /** Variables of the user's environment the agent must not see (a credential for another host). */
  readonly unsetEnv?: readonly string[];
  readonly args: readonly string[];
  readonly files: readonly PrivateFile[];
  readonly document: AgentDocument;
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
  /** How to install it, for the missing-agent error and `svc code --list`. */
  readonly install: string;
  /** The endpoint it sends model requests to, under the base URL. */
  readonly endpoint: string;
  /**
   * Whether it needs a model chosen for it: its own default names a model no fleet serves
   * (Claude, GPT), so with none chosen svc refuses rather than launch it at a 404.
   */
  readonly needsModel: boolean;
  /**
   * The size of the agent's first request as measured, with where the number came from: a model
   * whose window is smaller cannot take it, and svc code warns before launch. Absent: not measured.
   */
  readonly firstPrompt?: { readonly tokens: number; readonly source: string };
  plan(target: AgentTarget, context: AgentContext): AgentPlan;
}

/** The key's variable and value, for the agent's environment only (never its argv). */
export function keyEnv(target: AgentTarget): Record<string, string> {
  return target.key === undefined ? {} : { [target.key.variable]: target.key.value };
}

/**
 * Stands in where an agent insists on a credential and the endpoint takes none (a tokenless
 * loopback gateway): not a variable name, not a secret, ignored by an ungated server.
 */
export const NO_KEY = 'no-key';
