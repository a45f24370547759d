import { defineConfig } from 'vitest/config';

// Two projects, one runner (docs/design.md "Stack"): unit tests sit beside the code they test;
// end-to-end tests spawn the built CLI and real engines, so they run one file at a time with roomy
// timeouts.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'test/support/**/*.test.ts', 'bench/**/*.test.ts'],
          environment: 'node',
          // No test depends on the machine's speed: properties run a fixed numRuns, and the
          // limit is generous enough for a loaded 2-core machine (vitest's default is 5 s).
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.e2e.test.ts'],
          environment: 'node',
          // Installs the test engine and tmux, or stops at once naming what is missing.
          globalSetup: ['test/support/prerequisites/e2e-prerequisites.ts'],
          pool: 'forks',
          fileParallelism: false,
          // Roomy: real engines on a loaded 2-core machine; each test waits for readiness itself.
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
