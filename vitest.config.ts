import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // One process per test file: setMaintenance() invalidates the cache there, so a long cache is safe and keeps
    // the 2 s refresh out of query-count assertions.
    env: { CAIRN_MAINTENANCE_CACHE_MS: '3600000' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // PGlite instances are memory-hungry (~300 MB each): keep the number of parallel files modest.
    maxWorkers: 2,
    pool: 'forks',
  },
});
