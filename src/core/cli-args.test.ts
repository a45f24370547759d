import { describe, expect, it } from 'vitest';

import { parseCommandArgs } from './cli-args.ts';

const OPTIONS = {
  loopback: { type: 'boolean', short: 'l', description: 'Bind 127.0.0.1' },
  'api-addr': { type: 'string', value: '<addr>', description: 'Listen address' },
  'api-token-file': { type: 'string', value: '<path>', description: 'Token file' },
} as const;

function refusal(argv: string[], maxPositionals = 0): string {
  try {
    parseCommandArgs('daemon', OPTIONS, argv, maxPositionals);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('expected a refusal');
}

describe('parseCommandArgs', () => {
  it('parses known flags and positionals', () => {
    const parsed = parseCommandArgs('daemon', OPTIONS, ['-l', '--api-addr', ':0', 'x'], 1);
    expect(parsed.values).toEqual({ loopback: true, 'api-addr': ':0' });
    expect(parsed.positionals).toEqual(['x']);
  });

  it('refuses an unknown flag naming the closest known one (docs/design.md D20)', () => {
    expect(refusal(['--lopback'])).toBe(
      'unknown option --lopback: did you mean --loopback? (see svc daemon --help)',
    );
    expect(refusal(['--api-tokenfile=x'])).toBe(
      'unknown option --api-tokenfile: did you mean --api-token-file? (see svc daemon --help)',
    );
  });

  it('names every unknown flag at once, with no suggestion when none is close', () => {
    expect(refusal(['--verbose', '-z', '--loopbak'])).toBe(
      'unknown option --verbose; unknown option -z; unknown option --loopbak: did you mean --loopback? (see svc daemon --help)',
    );
  });

  it('catches an unknown flag even where it would be read as a value', () => {
    expect(refusal(['--api-addr', '--lopback'])).toContain(
      'unknown option --lopback: did you mean --loopback?',
    );
  });

  it('says a value is missing or unwanted in its own words, never parseArgs text', () => {
    expect(refusal(['--api-addr'])).toBe(
      'option --api-addr needs a value: --api-addr <addr> (see svc daemon --help)',
    );
    expect(refusal(['--loopback=yes'])).toBe(
      'option --loopback takes no value (see svc daemon --help)',
    );
    expect(refusal(['--api-addr', '-l'])).toBe(
      'option --api-addr needs a value: --api-addr <addr> (see svc daemon --help)',
    );
  });

  it('refuses extra arguments', () => {
    expect(refusal(['a', 'b'], 1)).toBe('unexpected argument "b" (see svc daemon --help)');
  });
});
