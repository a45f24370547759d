/**
 * Flag parsing for every command: node:util parseArgs in strict mode (an unknown flag is an
 * error, never ignored) with one option table that also renders the help text, so help cannot
 * list a flag the command does not take.
 */
import { parseArgs } from 'node:util';

import { SvcError } from './errors.ts';

export interface OptionSpec {
  readonly type: 'boolean' | 'string';
  readonly short?: string;
  /** Placeholder for a string option's value in help (`<path>`). */
  readonly value?: string;
  readonly description: string;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** The token flags of spec §5 rule 2, shared by every command with an API. */
export const TOKEN_OPTIONS = {
  'api-token-file': {
    type: 'string',
    value: '<path>',
    description: 'Read the API token from this file',
  },
  'api-token': {
    type: 'string',
    value: '<value>',
    description: 'The API token (visible in the process list)',
  },
} as const satisfies OptionTable;

/** `--log-level` (spec §1.5): overrides SVC_LOG_LEVEL. */
export const LOG_LEVEL_OPTION = {
  'log-level': {
    type: 'string',
    value: '<level>',
    description: 'debug, info (default), warn or error',
  },
} as const satisfies OptionTable;

type Values<T extends OptionTable> = {
  [K in keyof T]?: T[K]['type'] extends 'boolean' ? boolean : string;
};

export interface ParsedArgs<T extends OptionTable> {
  readonly values: Values<T>;
  readonly positionals: readonly string[];
}

export function parseCommandArgs<T extends OptionTable>(
  command: string,
  options: T,
  argv: readonly string[],
  maxPositionals: number,
): ParsedArgs<T> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(
        Object.entries(options).map(([name, spec]) => [
          name,
          spec.short === undefined ? { type: spec.type } : { type: spec.type, short: spec.short },
        ]),
      ),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    throw new SvcError('ERR_USAGE', `${message ?? 'bad arguments'} (see svc ${command} --help)`);
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals.slice(maxPositionals).join(' ');
    throw new SvcError('ERR_USAGE', `unexpected argument "${extra}" (see svc ${command} --help)`);
  }
  return { values: parsed.values as Values<T>, positionals: parsed.positionals };
}

/** Help text: usage lines, a description, then the option table. */
export function renderCommandHelp(
  usage: readonly string[],
  description: string,
  options: OptionTable,
): string {
  const rows = Object.entries(options).map(([name, spec]) => {
    const flags = `${spec.short === undefined ? '    ' : `-${spec.short}, `}--${name}${spec.value === undefined ? '' : ` ${spec.value}`}`;
    return [flags, spec.description] as const;
  });
  rows.push(['-h, --help', 'Show this help']);
  const width = Math.max(...rows.map(([flags]) => flags.length));
  return [
    'Usage:',
    ...usage.map((line) => `  ${line}`),
    '',
    description,
    '',
    'Options:',
    ...rows.map(([flags, text]) => `  ${flags.padEnd(width)}  ${text}`),
    '',
  ].join('\n');
}
