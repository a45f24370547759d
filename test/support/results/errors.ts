/**
 * The SvcError a call throws or a promise rejects with, for tests that assert on its code, kind and
 * message. Anything else thrown is rethrown as it is, and nothing thrown fails the test.
 */
import { SvcError } from '../../../src/core/errors.ts';

/** The SvcError `run` throws; fails when it throws nothing (or returns a promise: use rejectionOf). */
export function thrownBy(run: () => unknown): SvcError {
  let returned: unknown;
  try {
    returned = run();
  } catch (error) {
    if (error instanceof SvcError) {
      return error;
    }
    throw error;
  }
  if (returned instanceof Promise) {
    throw new Error('expected an SvcError to be thrown, but got a promise: use rejectionOf');
  }
  throw new Error('expected an SvcError to be thrown, but nothing was thrown');
}

/** The SvcError `promise` rejects with; fails when it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcError) {
      return error;
    }
    throw error;
  }
  throw new Error('expected a rejection with an SvcError, but the promise resolved');
}
