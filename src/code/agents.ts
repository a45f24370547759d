/**
 * The coding agents `svc code` can launch, one row each: a later agent is one more row here and
 * one builder beside opencode.ts, pi.ts, claude.ts and codex.ts.
 */
import { closestName } from '../core/closest-name.ts';
import { SvcError } from '../core/errors.ts';
import type { AgentSpec } from './agent-plan.ts';
import { CLAUDE } from './claude.ts';
import { CODEX } from './codex.ts';
import { OPENCODE } from './opencode.ts';
import { PI } from './pi.ts';

export const AGENTS: readonly AgentSpec[] = [OPENCODE, PI, CLAUDE, CODEX];

export const DEFAULT_AGENT = 'opencode';

/** The agent named by `--agent`, else config.json's `harness`, else opencode. */
export function pickAgent(
  flag: string | undefined,
  harness: string | undefined,
  configPath: string,
): AgentSpec {
  const name = flag ?? harness ?? DEFAULT_AGENT;
  const agent = AGENTS.find((candidate) => candidate.name === name);
  if (agent === undefined) {
    const where = flag === undefined ? `"harness" in ${configPath}` : '--agent';
    const names = AGENTS.map((entry) => entry.name);
    const closest = closestName(name, names);
    throw new SvcError(
      'ERR_USAGE',
      `${where} names "${name}", which svc cannot launch${closest === undefined ? '' : ` (did you mean "${closest}"?)`}: use ${names.map((entry) => `"${entry}"`).join(', ')}`,
    );
  }
  return agent;
}

/**
 * `svc code --list`: each agent, the endpoint it speaks, and where it was found on PATH or how to
 * install it. `locate` is the PATH lookup (injected: pure here).
 */
export function renderAgentList(
  locate: (command: string) => string | undefined,
  defaultAgent: string,
): string {
  const rows = AGENTS.map((agent) => {
    const found = locate(agent.command);
    return [
      `${agent.name}${agent.name === defaultAgent ? ' (default)' : ''}`,
      `/v1${agent.endpoint}`,
      found === undefined ? `not installed: ${agent.install}` : `installed: ${found}`,
    ];
  });
  const table = [['AGENT', 'SPEAKS', 'STATUS'], ...rows];
  const widths = [0, 1].map((column) =>
    Math.max(...table.map((row) => (row[column] ?? '').length)),
  );
  return `${table
    .map((row) =>
      row.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell)).join('  '),
    )
    .join('\n')}\n`;
}
