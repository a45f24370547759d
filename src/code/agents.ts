/**
 * The coding agents `svc code` can launch, one row each: a later agent is one more row here and
 * one builder beside opencode.ts and pi.ts.
 */
import { SvcError } from '../core/errors.ts';
import type { AgentSpec } from './agent-plan.ts';
import { OPENCODE } from './opencode.ts';
import { PI } from './pi.ts';

export const AGENTS: readonly AgentSpec[] = [OPENCODE, PI];

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
    throw new SvcError(
      'ERR_USAGE',
      `${where} names "${name}", which svc cannot launch: use ${AGENTS.map((entry) => `"${entry.name}"`).join(' or ')}`,
    );
  }
  return agent;
}
