/**
 * Waiting for a slow reader: resolves on the writable's 'drain' or 'close', whichever comes
 * first, and removes both listeners either way. (Leaving the other one behind added a listener
 * per backpressured chunk: hundreds of 'close' listeners and a MaxListenersExceededWarning on
 * one long stream.)
 */
import type { EventEmitter } from 'node:events';

export function drainOrClose(writable: EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      writable.off('drain', done);
      writable.off('close', done);
      resolve();
    };
    writable.once('drain', done);
    writable.once('close', done);
  });
}
