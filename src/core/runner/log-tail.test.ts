import { describe, expect, it } from 'vitest';

import { decodeEvents, encodeEvent } from './engine-watchdog.ts';
import { redactSecrets, startFailureMessage, TAIL_LINE_WIDTH, tailLines } from './log-tail.ts';
import { missingModelFile, modelFileArgument } from './model-file.ts';

describe('tailLines', () => {
  it('keeps the last lines, skipping blank ones', () => {
    const text = Array.from({ length: 30 }, (_, index) => `line ${index}`).join('\n');
    expect(tailLines(`${text}\n\n`, 10, [])).toEqual(
      Array.from({ length: 10 }, (_, index) => `line ${index + 20}`),
    );
  });

  it('redacts every secret, even one a cut would have split', () => {
    const secret = 'sekrit-key-123';
    const long = `${'x'.repeat(TAIL_LINE_WIDTH - 2)}${secret}`;
    const lines = tailLines(`key=${secret} token=tkn-77\n${long}`, 10, [secret, 'tkn-77']);
    expect(lines[0]).toBe('key=*** token=***');
    expect(lines.join('\n')).not.toMatch(/sekrit|tkn-77/);
    expect(lines[1]?.length).toBeLessThanOrEqual(TAIL_LINE_WIDTH);
    expect(lines[1]?.endsWith('…')).toBe(true);
  });

  it('masks a secret inside a longer one with the longer one, in the mask asked for', () => {
    expect(redactSecrets('a key-1-long b', ['key-1', 'key-1-long'])).toBe('a *** b');
    expect(redactSecrets('a key-1 b', ['key-1'], (secret) => '#'.repeat(secret.length))).toBe(
      'a ##### b',
    );
  });

  it('drops terminal escapes and control characters', () => {
    expect(tailLines('\u001b[31mred\u001b[0m\u0007 text\r\n', 5, [])).toEqual(['red text']);
  });
});

describe('startFailureMessage', () => {
  it("quotes this start's log lines, or says the engine wrote none", () => {
    expect(
      startFailureMessage('the engine exited during start-up (exit code 3)', ['a', 'b'], false),
    ).toBe(
      "the engine exited during start-up (exit code 3); the engine's last log lines:\n  a\n  b",
    );
    expect(startFailureMessage('could not start /bin/x: spawn EACCES', [], false)).toBe(
      'could not start /bin/x: spawn EACCES; the engine wrote nothing to its log',
    );
  });

  it('adds nothing when the engine output was forwarded: it is on the screen already', () => {
    for (const lines of [[], ['fake-engine: failing on purpose']]) {
      expect(
        startFailureMessage('the engine exited during start-up (exit code 3)', lines, true),
      ).toBe('the engine exited during start-up (exit code 3)');
    }
  });
});

describe('model file check', () => {
  it('finds llama.cpp -m / --model and ignores other engines', () => {
    expect(modelFileArgument('llamacpp', ['-m', '/m.gguf', '--port', '1'])).toBe('/m.gguf');
    expect(modelFileArgument('llamacpp', ['--model=/n.gguf'])).toBe('/n.gguf');
    expect(modelFileArgument('llamacpp', ['-hf', 'org/m'])).toBeUndefined();
    expect(modelFileArgument('vllm', ['-m', '/m'])).toBeUndefined();
    expect(missingModelFile('llamacpp', ['-m', '/gone.gguf'], () => false)).toBe('/gone.gguf');
    expect(missingModelFile('llamacpp', ['-m', '/here.gguf'], () => true)).toBeUndefined();
  });
});

describe('watchdog status events', () => {
  it('round-trip through the pipe, a partial line kept for later', () => {
    const text =
      encodeEvent({ event: 'spawned', pid: 9 }) +
      encodeEvent({ event: 'exit', code: 3, signal: null });
    const first = decodeEvents(text.slice(0, text.length - 5));
    expect(first.events).toEqual([{ event: 'spawned', pid: 9 }]);
    const second = decodeEvents(first.rest + text.slice(text.length - 5));
    expect(second.events).toEqual([{ event: 'exit', code: 3, signal: null }]);
    expect(second.rest).toBe('');
  });
});
