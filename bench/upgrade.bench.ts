// Upgrade vN → vN+1 (one migration) of a real install with 50,000 devices on PostgreSQL (BENCH_DATABASE_URL):
// each step's time and the downtime from the run's own journal (quiesce start → resume end: the steps that may
// answer 503), and the window a client saw, from a poller reading a list and health throughout (first 503 to
// last). Bundles are built from this source tree as the upgrade tests do. The run keeps the site readable
// (CAIRN_UPGRADE_SERVE_READS=1: its migration only adds a table, so reads are answered throughout and changes wait
// from quiesce to resume); BENCH_UPGRADE_SERVE_READS=0 measures SPEC's default, the maintenance page from quiesce on.
import { loadavg } from 'node:os';
import { readJournal } from '../src/upgrade/engine/journal.ts';
import { sql } from 'kysely';
import { buildBundles, installRelease, startPoller, upgradeFigures, withInstallDatabase } from '../test/upgrade/install.ts';
import { benchSize } from './helpers.ts';

const DEVICES = benchSize('BENCH_UPGRADE_DEVICES', 50_000, 5, { devices: true });
const SERVE_READS = process.env.BENCH_UPGRADE_SERVE_READS !== '0';

export default async function run(): Promise<void> {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) {
    console.log('upgrade: skipped (set BENCH_DATABASE_URL: the upgrade bench runs on PostgreSQL)');
    return;
  }
  const t0 = Date.now();
  const bundles = await buildBundles();
  console.log(`bundles built in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const t1 = Date.now();
  // The product's own choice between the server's copy and a dump (the tests force the copy).
  const inst = await installRelease(bundles.vN, bundles.versionN, { devices: DEVICES, postgresUrl: url, snapshotCopyFromMb: null, serveReads: SERVE_READS });
  console.log(`installed ${bundles.versionN} with ${DEVICES.toLocaleString('en-US')} devices in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
  // A server at rest has written its changed pages out (every checkpoint_timeout, five minutes by default); this
  // one has just loaded the demo data. The snapshot's copy starts with a checkpoint, so it would otherwise pay for
  // writing out the install, which no real upgrade does.
  const t2 = Date.now();
  const checkpoint = await withInstallDatabase(inst, (db) => sql`CHECKPOINT`.execute(db)).then(
    () => `${((Date.now() - t2) / 1000).toFixed(1)} s (not part of the upgrade)`,
    (err: Error) => `not run (${err.message}): the snapshot's copy pays for writing out the install`,
  );
  console.log(`checkpoint after the install: ${checkpoint}`);
  try {
    const poller = startPoller(inst.port, inst.adminToken);
    const r = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
    const seen = await poller.stop();
    if (r.code !== 0) throw new Error(`upgrade failed:\n${r.out}`);
    for (const line of upgradeFigures(readJournal(inst.layout.journalFile)!, seen, { serveReads: SERVE_READS, loadAverage: loadavg()[0]! })) console.log(line);
  } finally {
    await inst.close();
  }
}
