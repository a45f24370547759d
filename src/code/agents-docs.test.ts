/**
 * The worked example in docs/agents.md is what svc hands the agents: its fleet file and Svcfile
 * go through the same code `svc code` runs, and the result must equal the page's blocks (opencode's
 * and Pi's JSON, Claude Code's environment, Codex's config.toml); and the page's `svc code --list`
 * is what the command prints for the agents it shows as installed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { describe, expect, it } from 'vitest';

import { parseFleet } from '../core/fleet/file/fleet-file.ts';
import { unwrap } from '../core/project/diagnostics.ts';
import type { OpenedProject } from '../core/project/open-project.ts';
import { parseSvcfile } from '../core/project/parse.ts';
import { resolveProject } from '../core/project/resolve.ts';
import { renderAgentList } from './agents.ts';
import { claudeEnvFile } from './claude.ts';
import { codexConfig } from './codex.ts';
import { opencodeConfig } from './opencode.ts';
import { PI, piModels } from './pi.ts';
import { gatewayTarget } from './resolve-target.ts';

const page = readFileSync(join(fileURLToPath(import.meta.url), '../../../docs/agents.md'), 'utf8');

function block(info: string): string {
  const match = new RegExp(`\`\`\`${info}\\n([\\s\\S]*?)\`\`\``).exec(page);
  if (match?.[1] === undefined) {
    throw new Error(`docs/agents.md has no \`\`\`${info} block`);
  }
  return match[1];
}

describe('docs/agents.md', () => {
  it('shows exactly what svc hands each agent for its example', async () => {
    // The nodes' variables are unset: svc code reads the fleet leniently (docs/design.md D24).
    const fleet = unwrap(
      parseFleet(block('yaml title=fleet.yaml'), 'fleet.yaml', {
        env: {},
        dotenv: {},
        nodeTokens: 'lenient',
      }),
    );
    const project = unwrap(parseSvcfile(block('Svcfile'), 'Svcfile'));
    const { spec } = unwrap(resolveProject({ project, supervised: false }));
    const opened = { project, spec, env: { GATEWAY_TOKEN: 'secret' } } as unknown as OpenedProject;
    const target = await gatewayTarget({
      fleet,
      fleetDotenv: {},
      env: {},
      project: { opened, path: 'Svcfile' },
    });
    expect(opencodeConfig(target)).toEqual(JSON.parse(block('json title=OPENCODE_CONFIG_CONTENT')));
    expect(piModels(target)).toEqual(JSON.parse(block('json title=models.json')));
    expect(PI.plan(target, { privateDir: '/p' }).args).toEqual([
      '--provider',
      'svc',
      '--model',
      'coder',
    ]);
    expect(claudeEnvFile(target)).toBe(block('sh title=claude.env'));
    expect(codexConfig(target)).toBe(block('toml title=config.toml'));
  });

  it('shows what svc code --list prints', () => {
    const listed = /```console\n\$ svc code --list\n([\s\S]*?)```/.exec(page)?.[1];
    const installed = new Map(
      [...(listed ?? '').matchAll(/^(\S+).*installed: (\/\S+)$/gm)].map((row) => [row[1], row[2]]),
    );
    expect(renderAgentList((command) => installed.get(command), 'opencode')).toBe(listed);
  });
});
