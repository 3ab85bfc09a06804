import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { defineConfig } from 'vitest/config';
import { readdirSync } from 'node:fs';
import { claimsDir, FLOATING } from './test/runner/floating.ts';
import { checkedInThisPass } from './test/runner/pass-share.ts';
import { useRunTmpdir } from './test/runner/tmpdir.ts';

// Before any worker starts: every process of the run inherits its temporary directory (in memory when there is room).
const runTmpdir = useRunTmpdir();
if (runTmpdir) process.env.CAIRN_TEST_RUN_TMPDIR = runTmpdir;
// The `cairn` processes tests start run on V8's baseline tiers only (see the file).
const shortProcessTiers = resolve(import.meta.dirname, 'test/runner/short-process-tiers.cjs');
if (!process.env.NODE_OPTIONS?.includes(shortProcessTiers)) process.env.NODE_OPTIONS = `${process.env.NODE_OPTIONS ?? ''} --require ${shortProcessTiers}`.trim();

// Every process the run starts (workers, `cairn` processes, Python) keeps what glibc's malloc frees for reuse rather
// than handing it back to the kernel, and serves blocks up to 32 MB from its heap rather than from fresh mappings. On
// the virtual machines CI runs on a page touched for the first time is dear (filling 1.6 GB of new buffers: 5.5 s,
// 3 of them in the kernel, against well under one on bare metal), and the suite's processes churn through gigabytes:
// test/cli.test.ts with src/dcim/ports.test.ts took 47 CPU-s of the machine instead of 51 (four runs of each, every
// pair the same way). The product is unchanged; an operator's own GLIBC_TUNABLES wins.
process.env.GLIBC_TUNABLES ??= 'glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456:glibc.malloc.top_pad=67108864';

// Every embedded database of the run (the workers' copies of the template, the `cairn` processes' data directories)
// with a buffer cache of 32 MB instead of PostgreSQL's 128 (CAIRN_EMBEDDED_SHARED_BUFFERS_MB, src/config.ts): each
// open pays for all of it, some hundreds of times a run, for databases of a few MB. With transparent huge pages on,
// as .ci/run sets them, an open cost 0.50 CPU-s instead of 0.88 (four of each, alternating), `cairn demo-data
// --devices 40` 3.2-3.5 instead of 3.9-4.0 (three of each), and nine files (dcim, ipam, circuits, contacts, the
// generated suites, cli) 114 CPU-s of the machine instead of 125 (three runs of each, alternating). The statements
// and their plans are the same; an operator's own setting wins.
process.env.CAIRN_EMBEDDED_SHARED_BUFFERS_MB ??= '32';

// Files that start real processes, servers, browsers and installs, or change what a process holds for its life
// (PATH, listen sockets, the upgrade engine's state): each runs in a process of its own.
// The page tests in chromium (test/web/features/, test/web/ui.test.ts, test/web/backups.test.ts) start a server
// and a browser but change nothing of their own process: they share workers (a process of their own cost each
// 1.3 s of CPU to start on a fast machine, about 3 on a slow one).
// So do the upgrade's and the restore hold's small files (the feed, the mail, the launcher, the journal's helpers,
// the systemd units, the hand-over socket, the maintenance responder's admin snapshot): each works on files and
// servers of its own, under a second of CPU. And test/web/ui-api.test.ts, which only sets CAIRN_WEB_DIR for the
// app it builds: the shared workers' setup puts the environment back after each file.
// So do the files that run `cairn` commands and servers against databases of their own and change nothing else
// (test/cli, cli-progress, multi-process, pg-restart; src/system/system-cli; src/upgrade/online-cli): a process of
// their own cost each one a fork and a second import of the app, some 0.6-1.1 CPU-s (the six files in the two
// passes' settings, three runs of each, alternating: 32.2-39.4 CPU-s against 30.4-36.6 on the embedded database,
// 17.0-21.9 against 16.2-19.4 on PostgreSQL, where two of them only skip).
// The list names files, not folders: a new file that changes its process's state, or runs an install whose processes
// outlive its tests, must be added here by name.
const ISOLATED = [
  'test/upgrade/{clean,faults-*,handover,kill,routes}.test.ts',
  'test/web/upgrade-live.test.ts',
  'test/replicas.test.ts',
  'src/upgrade/{bundle,online-routes}.test.ts',
  'src/system/backup*.test.ts',
];

// Files that run `cairn` processes on an embedded database of their own, whatever database the run is given: the
// PostgreSQL pass (TEST_DATABASE_URL) would run them again unchanged, so they run in one pass only (the embedded
// one). About a hundred seconds of CPU of the CI's twelve minutes.
const EMBEDDED_ONLY = ['test/cli.test.ts', 'src/system/system-cli.test.ts', 'src/upgrade/bundle.test.ts', 'src/upgrade/online-cli.test.ts', 'test/ansible-inventory.test.ts', 'src/extras/webhook-serve.test.ts'];
// Files whose answers do not depend on the database behind them run in one pass only when both run. Most of them
// float (test/runner/floating.ts: the browser tests of pages, the API document, the catalogs, the files that open
// no database): the pass that reaches one first runs it. These are placed, each for a reason of its own:
const ONE_PASS = {
  embedded: [
    // The API document's generated client: here, where its type check runs (it is left out on PostgreSQL).
    'test/openapi-client.test.ts',
    // The hand-over between two releases' upgrade stages (a protocol between processes, the same on either
    // database): no restore among its runs (see EMBEDDED_PASS_RESTORES). Here rather than in the PostgreSQL pass,
    // with cli's, system-cli's and webhook-serve's processes, to even out the passes: with one worker a pass, the
    // PostgreSQL pass was the longer by 134 s on a slow machine.
    'test/upgrade/handover.test.ts',
  ],
  postgresql: [
    // A domain file with a test for PostgreSQL only (two transactions on one port): split by its name it ran on
    // the embedded database, where that test is skipped.
    'src/dcim/ports.test.ts',
    // pynetbox and the netbox.netbox collection against the dialect, and against NetBox's demo data imported from
    // PostgreSQL (that part needs PostgreSQL).
    'test/netbox-clients.test.ts',
    // The demo data's plan and contents, checked where large loads run; on the embedded database its loader runs in
    // every browser test's, upgrade install's and cli-progress's `cairn demo-data` (23 CPU-s there, 5 here).
    'src/system/demo-data.test.ts',
    // 500 devices of demo data and a render of them all: the same statements cost about half the CPU on PostgreSQL
    // (its server is native code; the embedded database runs as WebAssembly in the test's own process).
    'test/config-render-query-count.test.ts',
    // A primary and a standby of its own and `cairn serve` against them: PostgreSQL's programs are there only in
    // this pass (its settings' checks, the rest of the file, are the same in either).
    'test/replicas.test.ts',
  ],
};
const otherPass = process.env.CAIRN_TEST_BOTH_PASSES ? (process.env.TEST_DATABASE_URL ? ONE_PASS.embedded : ONE_PASS.postgresql) : [];
// Upgrade files whose runs roll back by restoring the database: on PostgreSQL a restore is one transaction over the
// whole schema (about 3,000 locks, of the 6,400 a default server shares between all its sessions), so two at once
// on the suite's one server ran out of shared lock memory. When both passes run, faults-rollback restores on
// PostgreSQL and these others on the embedded database only, never two PostgreSQL restores at once.
// The other way round, faults-rollback (failures from preflight to migrate) and the clean upgrade run on PostgreSQL
// only: the embedded database's snapshot, migration and restore are run by faults-outcomes and kill above, and a
// whole upgrade on it by handover's last case. Each upgrade file thus runs once (60-160 s of a worker each).
const EMBEDDED_PASS_RESTORES = ['test/upgrade/faults-outcomes.test.ts', 'test/upgrade/kill.test.ts'];
const POSTGRESQL_PASS_UPGRADES = ['test/upgrade/faults-rollback.test.ts', 'test/upgrade/clean.test.ts'];
const restoresElsewhere = !process.env.CAIRN_TEST_BOTH_PASSES ? [] : process.env.TEST_DATABASE_URL ? EMBEDDED_PASS_RESTORES : POSTGRESQL_PASS_UPGRADES;
// The domains' own test files (their routes, rules and pages over the core) run in one pass each when both run,
// half in each by the file's name (test/runner/pass-share.ts says why; a migration's test among them opens an
// embedded database of its own whatever the pass). Still in both: the core, the database layer, the system code
// (backups, restores), jobs, search's extensions, the upgrade's processes and the rest of test/ (the database's
// failures and restarts, statements, row counts, health).
const DOMAIN_ROOMS = ['automation', 'circuits', 'compliance', 'dcim', 'extras', 'ipam', 'lifecycle', 'monitoring', 'netbox-api', 'organization', 'routing', 'templating', 'virtualization', 'vpn', 'wireless'];
const domainFiles = DOMAIN_ROOMS.flatMap((room) =>
  (readdirSync(resolve(import.meta.dirname, 'src', room), { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => `src/${room}/${f}`),
);
// So do the suite-wide files over the API and the query builder, whose SQL is the same on either database: lookups,
// query counts, the write path's rules, forms, bulk writes, keyset paging, index coverage, authentication; search's
// queries and write paths (its extensions and CLI run in both); the upgrade's and the UI's routes; and the pages of
// a live upgrade in chromium (backups and restores themselves are src/system/backup*.test.ts, in both).
const SUITE_WIDE_ONE_PASS = [
  ...['head-requests', 'lookups-agree', 'list-query-count', 'bulk-query-count', 'one-path', 'one-rule', 'form-descriptors', 'bulk', 'keyset', 'fk-indexes', 'contrib-push', 'auth'].map((n) => `test/${n}.test.ts`),
  'src/search/search.test.ts',
  'src/search/write-paths.test.ts',
  'src/upgrade/online-routes.test.ts',
  'src/upgrade/maintenance-admins.test.ts',
  'test/upgrade/routes.test.ts',
  'test/web/ui-api.test.ts',
  'test/web/upgrade-live.test.ts',
];
// (Not the embedded-only files among them: they already run once, and split as well they would run nowhere; nor
// those a one-pass list above places: the list says which pass.)
const placed = [...ONE_PASS.embedded, ...ONE_PASS.postgresql];
const domainElsewhere = [...domainFiles, ...SUITE_WIDE_ONE_PASS].filter((f) => !EMBEDDED_ONLY.includes(f) && !placed.includes(f) && !checkedInThisPass(f, 0.5));
// The floating files run in both passes' lists and in one of them by claim (test/runner/claiming-runner.ts); both
// passes run without a directory to claim in (not .ci/run's), they split by name as the domains' files do.
const floatingElsewhere = process.env.CAIRN_TEST_BOTH_PASSES && !claimsDir() ? FLOATING.filter((f) => !checkedInThisPass(f, 0.5)) : [];
const skippedHere = [...(process.env.TEST_DATABASE_URL ? EMBEDDED_ONLY : []), ...otherPass, ...restoresElsewhere, ...domainElsewhere, ...floatingElsewhere];

// One worker per core, shared by the passes that run at once. PGlite instances are memory-hungry (~300 MB each),
// so never more than that. When .ci/run runs both passes side by side, each takes half the cores: with two
// workers a pass on a 2-core machine (four workers and their databases, servers and browsers on two cores), a CI
// run of a slow machine took 1,122-1,158 s and 2,213-2,280 CPU-s; with one a pass, 1,048 s and 1,882 CPU-s (the
// files' own CPU 1,248 → 1,038: fewer caches and timeslices fought over, two imports of the app instead of four).
// The other pass fills the cores while one waits on a process it started.
const maxWorkers = Math.max(1, Math.floor(availableParallelism() / (process.env.CAIRN_TEST_BOTH_PASSES ? 2 : 1)));
// With one worker, vitest runs the files of an isolated project in a group of their own after everything else
// (whatever the sequencer's order), so a pass ended on its long upgrade files and the floating files could not even
// out the passes' ends. Numbered groups run in their order: the isolated files first, as the sequencer has them.
const groupOrder = (project: 'isolated' | 'shared') => (maxWorkers === 1 ? { sequence: { groupOrder: project === 'isolated' ? 1 : 2 } } : {});

export default defineConfig({
  test: {
    globalSetup: ['test/global-setup.ts'],
    // A long cache keeps the 2 s refresh out of query-count assertions; setMaintenance() invalidates it, per database.
    // Every answer checked against its documented schema (test/runner/answer-check-setup.ts fails the test).
    env: { CAIRN_MAINTENANCE_CACHE_MS: '3600000', CAIRN_CHECK_ANSWERS: '1', CAIRN_PASSWORD_HASH_COST: '10' },
    testTimeout: 60_000,
    hookTimeout: 120_000,
    maxWorkers,
    pool: 'forks',
    // The workers live for the whole run and allocate steadily (requests, rows, PGlite's buffers): a young generation
    // of 32 MB instead of V8's 16 MB collects less often. Measured on dcim, ipam, circuits and
    // the generated suites (722 tests, one process of two workers, alternating runs): 89.1-91.5 CPU-s of the machine
    // against 91.1-93.3 on the embedded database, 65.2-66.8 against 66.5-67.2 on PostgreSQL. The `cairn` processes
    // tests start keep the default (their starts measured no gain).
    execArgv: ['--max-semi-space-size=32'],
    sequence: { sequencer: (await import('./test/runner/sequencer.ts')).default },
    // vitest's runner, which claims each floating file for one pass (test/runner/floating.ts).
    runner: './test/runner/claiming-runner.ts',
    reporters: ['default', './test/runner/file-times-reporter.ts'],
    projects: [
      {
        extends: true,
        test: { name: 'isolated', include: ISOLATED, exclude: skippedHere, setupFiles: ['test/runner/answer-check-setup.ts', 'test/runner/cpu-recorder.ts'], ...groupOrder('isolated') },
      },
      {
        // Everything else runs file after file in shared workers: importing the app once per worker instead of
        // once per file took 38% of these files' CPU time. Each file still opens its own database.
        extends: true,
        test: {
          name: 'shared',
          include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
          exclude: [...ISOLATED, ...skippedHere],
          isolate: false,
          setupFiles: ['test/runner/shared-worker-setup.ts', 'test/runner/answer-check-setup.ts', 'test/runner/cpu-recorder.ts'],
          ...groupOrder('shared'),
        },
      },
    ],
  },
});
