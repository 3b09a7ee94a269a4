import { defineConfig } from 'vitest/config';

const shared = {
  resolve: { conditions: ['source'] },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
};

export default defineConfig({
  ...shared,
  test: {
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: 'forks',
    reporters: ['default'],
    projects: [
      {
        ...shared,
        test: {
          name: 'kruise',
          include: ['packages/*/test/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: ['packages/cri/test/**', 'packages/daemon/test/**', 'test/e2e/**'],
          testTimeout: 30_000,
          hookTimeout: 120_000,
        },
      },
      {
        ...shared,
        test: {
          // Real containerd and registry: one stack for the run, files one at a time (they share images).
          name: 'node',
          include: [
            'packages/cri/test/**/*.test.ts',
            'packages/daemon/test/**/*.test.ts',
            'test/e2e/**/*.test.ts',
          ],
          globalSetup: ['test/setup/cri-stack.ts'],
          fileParallelism: false,
          testTimeout: 60_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
