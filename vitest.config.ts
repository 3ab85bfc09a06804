import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite instances are memory-hungry (~300 MB each): keep the number of parallel files modest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
