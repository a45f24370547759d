/**
 * The recording fake agent (test/fixtures/agents): `opencode`, `pi`, `claude` and `codex` shims
 * first on PATH that write what they received to a JSON file, so a test can check what `svc code`
 * handed the agent.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

import { REPO_ROOT } from '../prerequisites/engines.ts';

export const FAKE_AGENT_DIR = join(REPO_ROOT, 'test', 'fixtures', 'agents');

export interface AgentRecord {
  readonly name: string;
  readonly args: string[];
  readonly env: Record<string, string>;
  /** The files of PI_CODING_AGENT_DIR or CODEX_HOME, by name. */
  readonly files: Record<string, string>;
  readonly signals: string[];
}

export async function readAgentRecord(path: string): Promise<AgentRecord> {
  return JSON.parse(await readFile(path, 'utf8')) as AgentRecord;
}

/** The opencode provider config handed over in OPENCODE_CONFIG_CONTENT. */
export function opencodeConfigOf(record: AgentRecord): {
  provider: Record<
    string,
    { name: string; options: { baseURL: string; apiKey?: string }; models: object }
  >;
  model?: string;
} {
  return JSON.parse(record.env['OPENCODE_CONFIG_CONTENT'] ?? 'null') as ReturnType<
    typeof opencodeConfigOf
  >;
}
