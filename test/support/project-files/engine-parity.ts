/**
 * One Svcfile, one engine command (spec §1.3 rule 2, §2.7): what `svc serve` runs and what a
 * daemon node runs from the deploy config the fleet derives from the same Svcfile must be the same
 * engine invocation. The daemon places the config's fields before its serveArgs, so the two argv
 * lists may differ in order and in a flag's spelling (`-hf` beside a preset's `--hf-repo`); what
 * must match is the binary, the positionals and every flag with its value, counted (a flag given
 * twice on one side and once on the other is a difference).
 */
import { expect } from 'vitest';

import { buildCommand } from '../../../src/core/engines/build-command.ts';
import { canonicalKey } from '../../../src/core/engines/dialect.ts';
import type { EngineSpec } from '../../../src/core/engines/engine-spec.ts';
import { ENGINES, type Runner } from '../../../src/core/engines/engine-table.ts';
import { specFromDeployConfig } from '../../../src/core/engines/from-deploy-config.ts';
import { deployConfigFromSpec } from '../../../src/core/project/deploy-config-from-project.ts';

export interface EngineInvocation {
  readonly bin: string;
  /** What precedes the first flag: the subcommand and a positional model. */
  readonly positionals: readonly string[];
  /** `key value` (or a bare `key` for a switch) per flag, canonical keys, sorted. */
  readonly flags: readonly string[];
}

const isFlag = (token: string): boolean => /^-{1,2}[A-Za-z]/.test(token);

/** An argv read the way the engine reads it: keys in the dialect's canonical spelling. */
export function invocationOf(runner: Runner, argv: readonly string[]): EngineInvocation {
  const { dialect } = ENGINES[runner];
  const [bin = '', ...rest] = argv;
  const firstFlag = rest.findIndex(isFlag);
  const positionals = firstFlag < 0 ? rest : rest.slice(0, firstFlag);
  const flags: string[] = [];
  const tokens = firstFlag < 0 ? [] : rest.slice(firstFlag);
  for (let index = 0; index < tokens.length; index += 1) {
    const token = tokens[index] ?? '';
    const equals = token.indexOf('=');
    const name = equals < 0 ? token : token.slice(0, equals);
    const key = canonicalKey(dialect, name.replace(/^-+/, ''));
    if (equals >= 0) {
      flags.push(`${key} ${token.slice(equals + 1)}`);
      continue;
    }
    const next = tokens[index + 1];
    if (dialect.booleans.has(key) || next === undefined || isFlag(next)) {
      flags.push(key);
      continue;
    }
    flags.push(`${key} ${next}`);
    index += 1;
  }
  return { bin, positionals, flags: flags.sort() };
}

/**
 * The argv `serve` runs for a resolved Svcfile, supervised as the daemon always is (docs/design.md
 * D3).
 */
export function serveArgv(spec: EngineSpec): string[] {
  const built = buildCommand({ ...spec, supervised: true });
  return [built.bin, ...built.args];
}

/**
 * The argv a daemon runs when the fleet starts it from the same Svcfile: the deploy config the
 * fleet derives, then the daemon's own argv builder; or why the fleet cannot deploy the Svcfile.
 */
export function nodeArgv(spec: EngineSpec): { argv: string[] } | { refused: string[] } {
  const deployed = deployConfigFromSpec(spec, 'Svcfile');
  if (!deployed.ok) {
    return { refused: deployed.problems };
  }
  const built = buildCommand(specFromDeployConfig(deployed.value));
  return { argv: [built.bin, ...built.args] };
}

/** Whether an engine invocation names a model: a model flag, or vLLM's positional after serve. */
function namesModel(invocation: EngineInvocation): boolean {
  return (
    invocation.positionals.length > 1 ||
    invocation.flags.some((flag) => /^(model|model-url|hf-repo) /.test(flag))
  );
}

/**
 * Asserts that a daemon node started from this Svcfile would run what `serve` runs, or that the
 * fleet refuses the Svcfile for one of its documented reasons, and only then: an omlx or
 * command Svcfile or an ENGINE path (a deploy config cannot name them, spec §2.7), or one whose serve command names no
 * model (nothing to deploy). Any other refusal is a Svcfile the fleet fails to run.
 */
export function expectSameOnNode(spec: EngineSpec): void {
  const node = nodeArgv(spec);
  // A deploy config names neither oMLX nor a command nor an executable (spec §2.7; D31).
  if (spec.runner === 'omlx' || spec.runner === 'command' || spec.binary !== undefined) {
    expect(node, 'a deploy config cannot name it').toEqual({
      refused: [expect.stringContaining('cannot run on a daemon node')],
    });
    return;
  }
  if ('refused' in node) {
    expect(node.refused.join('\n')).toMatch(/nothing to deploy/);
    expect(
      namesModel(invocationOf(spec.runner, serveArgv(spec))),
      `serve runs ${serveArgv(spec).join(' ')}, which names a model the fleet did not deploy`,
    ).toBe(false);
    return;
  }
  expect(invocationOf(spec.runner, node.argv), `a daemon node runs ${node.argv.join(' ')}`).toEqual(
    invocationOf(spec.runner, serveArgv(spec)),
  );
}
