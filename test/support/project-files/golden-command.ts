/**
 * The golden tests' one way from Svcfile (+ preset) text to the engine command line, through the
 * real parser, resolver and command builder. Every Svcfile is also run the fleet's way (its
 * deploy config, then the daemon's argv builder), which must give the same engine command
 * (spec §1.3 rule 2; engine-parity.ts).
 */
import { buildCommand } from '../../../src/core/engines/build-command.ts';
import { formatCommand } from '../../../src/core/engines/shell-quote.ts';
import type { SvcError } from '../../../src/core/errors.ts';
import { unwrap } from '../../../src/core/project/diagnostics.ts';
import { parseSvcfile } from '../../../src/core/project/parse.ts';
import { parsePreset } from '../../../src/core/project/preset.ts';
import { resolveProject } from '../../../src/core/project/resolve.ts';
import { thrownBy } from '../results/errors.ts';
import { expectSameOnNode } from './engine-parity.ts';

export function command(svcfile: string, preset?: string, supervised = false): string {
  const project = unwrap(parseSvcfile(svcfile, 'Svcfile'));
  const resolved = unwrap(
    resolveProject({
      project,
      supervised,
      ...(preset === undefined
        ? {}
        : { preset: { preset: unwrap(parsePreset(preset, 'preset.ini')), source: 'preset.ini' } }),
    }),
  );
  expectSameOnNode(resolved.spec);
  const built = buildCommand(resolved.spec);
  return formatCommand([built.bin, ...built.args]);
}

/** The error a Svcfile (+ preset) is refused with. */
export function failure(svcfile: string, preset?: string): SvcError {
  return thrownBy(() => command(svcfile, preset));
}

export const lines = (...parts: string[]): string => `${parts.join('\n')}\n`;
