/**
 * spec §1.1: `serve` exits with the engine's own exit status, however early the engine exits:
 * one that exits during start-up gives its status too, never svc's start-failure code.
 */
import { describe, expect, it } from 'vitest';

import { SvcError } from '../core/errors.ts';
import { EngineStartError } from '../core/runner/engine-process.ts';
import { earlyExitStatus, exitStatus } from './run-serve.ts';

describe('exit statuses', () => {
  it("is the engine's code, or 128 + its signal's number", () => {
    expect(exitStatus({ code: 3, signal: null })).toBe(3);
    expect(exitStatus({ code: null, signal: 'SIGKILL' })).toBe(137);
  });

  it('takes the status of an engine that exited during start-up', () => {
    expect(
      earlyExitStatus(
        new EngineStartError('the engine exited during start-up', { code: 3, signal: null }),
      ),
    ).toBe(3);
    expect(
      earlyExitStatus(
        new EngineStartError('the engine exited during start-up', {
          code: null,
          signal: 'SIGSEGV',
        }),
      ),
    ).toBe(139);
  });

  it('leaves every other failure to the error catalog', () => {
    expect(
      earlyExitStatus(new EngineStartError('could not start /bin/x: spawn EACCES')),
    ).toBeUndefined();
    expect(
      earlyExitStatus(new SvcError('ERR_ENGINE_UNAVAILABLE', 'vllm not found')),
    ).toBeUndefined();
    expect(earlyExitStatus(new Error('boom'))).toBeUndefined();
  });
});
