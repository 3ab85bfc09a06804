import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';
import { useRunTmpdir } from './test/runner/tmpdir.ts';

// Before any worker starts: every process of the run inherits its temporary directory (in memory when there is room).
const runTmpdir = useRunTmpdir();
if (runTmpdir) process.env.CAIRN_TEST_RUN_TMPDIR = runTmpdir;

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // One process per test file: setMaintenance() invalidates the cache there, so a long cache is safe and keeps
    // the 2 s refresh out of query-count assertions.
    env: { CAIRN_MAINTENANCE_CACHE_MS: '3600000' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // One worker per core. PGlite instances are memory-hungry (~300 MB each), so never more than that.
    maxWorkers: Math.max(1, availableParallelism()),
    pool: 'forks',
    sequence: { sequencer: (await import('./test/runner/sequencer.ts')).default },
    reporters: ['default', './test/runner/file-times-reporter.ts'],
  },
});
