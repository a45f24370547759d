import { describe, expect, it, vi } from 'vitest';

import { SvcError } from './errors.ts';
import {
  createLogger,
  formatRecord,
  type LogLevel,
  parseLogLevel,
  resolveLogLevel,
} from './logger.ts';

describe('resolveLogLevel', () => {
  it('defaults to info', () => {
    expect(resolveLogLevel({})).toBe('info');
    expect(resolveLogLevel({ env: '' })).toBe('info');
  });

  it('reads SVC_LOG_LEVEL', () => {
    expect(resolveLogLevel({ env: 'warn' })).toBe('warn');
  });

  it('lets --log-level win over SVC_LOG_LEVEL', () => {
    expect(resolveLogLevel({ flag: 'debug', env: 'error' })).toBe('debug');
  });

  it('lets a valid flag win even over an invalid environment value', () => {
    expect(resolveLogLevel({ flag: 'error', env: 'loud' })).toBe('error');
  });

  it.each(['debug', 'info', 'warn', 'error', 'WARN'])('accepts %s', (value) => {
    expect(parseLogLevel(value, '--log-level')).toBe(value.toLowerCase());
  });

  it.each([
    ['verbose', '--log-level'],
    ['trace', 'SVC_LOG_LEVEL'],
    ['warning', '--log-level'],
  ])('refuses %s from %s, naming the source and the choices', (value, source) => {
    const inputs = source === '--log-level' ? { flag: value } : { env: value };
    const error = (() => {
      try {
        resolveLogLevel(inputs);
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).code).toBe('ERR_LOG_LEVEL');
    expect((error as SvcError).message).toBe(
      `${source} "${value}" is not a log level: expected one of debug, info, warn, error`,
    );
  });
});

describe('createLogger', () => {
  const capture = (level: LogLevel): { lines: string[]; log: ReturnType<typeof createLogger> } => {
    const lines: string[] = [];
    const log = createLogger(level, {
      write: (line) => lines.push(line),
      now: () => new Date('2026-11-22T10:00:00.000Z'),
    });
    return { lines, log };
  };

  it('writes records at or above its level only', () => {
    const { lines, log } = capture('warn');
    log.debug('d');
    log.info('i');
    log.warn('w');
    log.error('e');
    expect(lines).toEqual([
      '2026-11-22T10:00:00.000Z WARN  w\n',
      '2026-11-22T10:00:00.000Z ERROR e\n',
    ]);
    expect(log.enabled('info')).toBe(false);
    expect(log.enabled('error')).toBe(true);
  });

  it('writes everything at debug', () => {
    const { lines, log } = capture('debug');
    log.debug('d');
    log.info('i');
    expect(lines).toHaveLength(2);
  });

  it('writes to stderr by default, never stdout', () => {
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    try {
      createLogger('info').info('to stderr');
      expect(stderr).toHaveBeenCalledWith(expect.stringContaining('INFO  to stderr'));
      expect(stdout).not.toHaveBeenCalled();
    } finally {
      stderr.mockRestore();
      stdout.mockRestore();
    }
  });
});

describe('formatRecord', () => {
  const at = new Date('2026-11-22T10:00:00.000Z');

  it('appends fields as key=value, quoting values with spaces, quotes or equals signs', () => {
    expect(
      formatRecord(at, 'info', 'api request', {
        method: 'GET',
        path: '/v1/logs?offset=10',
        note: 'two words',
        status: 200,
        skipped: undefined,
        ok: true,
      }),
    ).toBe(
      '2026-11-22T10:00:00.000Z INFO  api request method=GET path="/v1/logs?offset=10" note="two words" status=200 ok=true\n',
    );
  });

  it('keeps a record on one line', () => {
    expect(formatRecord(at, 'error', 'first\nsecond', { detail: 'a\nb' })).toBe(
      '2026-11-22T10:00:00.000Z ERROR first\\nsecond detail="a\\nb"\n',
    );
  });
});
