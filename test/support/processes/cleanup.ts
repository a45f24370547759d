/**
 * When a test's processes and directories are cleaned up. By default at the end of the test that
 * made them; inside sharedByFile() (a `beforeAll`, where there is no current test) they are kept
 * for the whole file and cleaned up by endSharedByFile() in its `afterAll`, so one fleet can serve
 * every test of a file.
 */
import { onTestFinished } from 'vitest';

type Cleanup = () => Promise<void> | void;

const shared: Cleanup[] = [];
let sharing = false;

export function atEnd(cleanup: Cleanup): void {
  if (sharing) {
    shared.push(cleanup);
  } else {
    onTestFinished(async () => {
      await cleanup();
    });
  }
}

/** Runs `setup` (from a `beforeAll`); what it starts lives until endSharedByFile(). */
export async function sharedByFile<T>(setup: () => Promise<T>): Promise<T> {
  sharing = true;
  try {
    return await setup();
  } finally {
    sharing = false;
  }
}

/** Cleans up what sharedByFile() started, last first (call it from `afterAll`). */
export async function endSharedByFile(): Promise<void> {
  for (const cleanup of shared.splice(0).reverse()) {
    await cleanup();
  }
}
