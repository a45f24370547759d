/**
 * The one leveled logger. Every record goes to stderr as one `time level message key=value` line;
 * stdout is left to what a command prints on purpose (the engine command, a table, JSON). Callers
 * pass fields, never secrets: nothing here can tell a token from any other string.
 */

import { SvcError } from './errors.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export type LogFields = Readonly<Record<string, string | number | boolean | undefined>>;

export interface Logger {
  readonly level: LogLevel;
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  /** Whether a record at `level` would be written. */
  enabled(level: LogLevel): boolean;
}

/** `--log-level` beats `SVC_LOG_LEVEL`; neither set (or empty) means info (spec §1.5). */
export function resolveLogLevel(inputs: {
  flag?: string | undefined;
  env?: string | undefined;
}): LogLevel {
  if (inputs.flag !== undefined) {
    return parseLogLevel(inputs.flag, '--log-level');
  }
  if (inputs.env !== undefined && inputs.env !== '') {
    return parseLogLevel(inputs.env, 'SVC_LOG_LEVEL');
  }
  return 'info';
}

export function parseLogLevel(value: string, source: string): LogLevel {
  const level = LOG_LEVELS.find((candidate) => candidate === value.toLowerCase());
  if (level === undefined) {
    throw new SvcError(
      'ERR_LOG_LEVEL',
      `${source} "${value}" is not a log level: expected one of ${LOG_LEVELS.join(', ')}`,
    );
  }
  return level;
}

export interface LoggerOptions {
  write?: (line: string) => void;
  now?: () => Date;
}

export function createLogger(level: LogLevel, options: LoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => process.stderr.write(line));
  const now = options.now ?? (() => new Date());
  const threshold = LOG_LEVELS.indexOf(level);
  const enabled = (at: LogLevel): boolean => LOG_LEVELS.indexOf(at) >= threshold;
  const log =
    (at: LogLevel) =>
    (message: string, fields?: LogFields): void => {
      if (enabled(at)) {
        write(formatRecord(now(), at, message, fields));
      }
    };
  return {
    level,
    enabled,
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
  };
}

/** One record: ISO time, padded level, message, then logfmt fields; always a single line. */
export function formatRecord(
  time: Date,
  level: LogLevel,
  message: string,
  fields?: LogFields,
): string {
  let line = `${time.toISOString()} ${level.toUpperCase().padEnd(5)} ${oneLine(message)}`;
  for (const [key, value] of Object.entries(fields ?? {})) {
    if (value !== undefined) {
      line += ` ${key}=${formatValue(value)}`;
    }
  }
  return `${line}\n`;
}

function formatValue(value: string | number | boolean): string {
  const text = String(value);
  return text === '' || /[\s"=\\]/.test(text) ? JSON.stringify(text) : text;
}

function oneLine(text: string): string {
  return text.replace(/\r?\n/g, '\\n');
}
