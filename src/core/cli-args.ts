/**
 * Flag parsing for every command: node:util parseArgs in strict mode with one option table that
 * also renders the help text, so help cannot list a flag the command does not take. An unknown
 * flag is an error naming the closest known one, never ignored (docs/design.md D20), in our own
 * words.
 */
import { parseArgs } from 'node:util';

import { closestName } from './closest-name.ts';
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

/** Our own words for parseArgs' refusals (never its raw text, which names no alternative). */
function usageError(command: string, message: string): SvcError {
  return new SvcError('ERR_USAGE', `${message} (see svc ${command} --help)`);
}

/**
 * Unknown options, found before the strict parse so the error can name the closest known flag
 * (docs/design.md D20): `unknown option --lopback: did you mean --loopback?`.
 */
function unknownOptions(options: OptionTable, argv: readonly string[]): string[] {
  const { tokens } = parseArgs({
    args: [...argv],
    options: parseArgsOptions(options),
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const known = Object.keys(options);
  const problems: string[] = [];
  const report = (raw: string): void => {
    const near = raw.startsWith('--') ? closestName(raw.slice(2), known) : undefined;
    problems.push(`unknown option ${raw}${near === undefined ? '' : `: did you mean --${near}?`}`);
  };
  for (const token of tokens) {
    if (token.kind !== 'option') {
      continue;
    }
    if (!(token.name in options) && token.name !== 'help') {
      report(token.rawName.startsWith('--') ? `--${token.name}` : token.rawName);
    } else if (token.inlineValue === false && token.value.startsWith('--')) {
      // The lenient pass read `--api-addr --lopback` as a value; the typo is still the error.
      const name = token.value.slice(2).split('=')[0] ?? '';
      if (!(name in options)) {
        report(`--${name}`);
      }
    }
  }
  return problems;
}

function parseArgsOptions(
  options: OptionTable,
): Record<string, { type: 'boolean' | 'string'; short?: string }> {
  return Object.fromEntries(
    Object.entries(options).map(([name, spec]) => [
      name,
      spec.short === undefined ? { type: spec.type } : { type: spec.type, short: spec.short },
    ]),
  );
}

/** A value-shape refusal from the strict parse, in our words and naming the flag. */
function valueProblem(options: OptionTable, message: string): string {
  const name = /--([\w-]+)/.exec(message)?.[1];
  const spec = name === undefined ? undefined : options[name];
  if (name === undefined || spec === undefined) {
    return 'bad arguments';
  }
  return spec.type === 'boolean'
    ? `option --${name} takes no value`
    : `option --${name} needs a value: --${name} ${spec.value ?? '<value>'}`;
}

export function parseCommandArgs<T extends OptionTable>(
  command: string,
  options: T,
  argv: readonly string[],
  maxPositionals: number,
): ParsedArgs<T> {
  const unknown = unknownOptions(options, argv);
  if (unknown.length > 0) {
    throw usageError(command, unknown.join('; '));
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: parseArgsOptions(options),
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw usageError(command, valueProblem(options, error instanceof Error ? error.message : ''));
  }
  if (parsed.positionals.length > maxPositionals) {
    const extra = parsed.positionals.slice(maxPositionals).join(' ');
    throw usageError(command, `unexpected argument "${extra}"`);
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
