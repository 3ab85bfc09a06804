// Upgrade vN → vN+1 (one migration) of a real install with 50,000 devices on PostgreSQL (BENCH_DATABASE_URL):
// the downtime (quiesce start → resume end, the window the site answers 503) and each step's time, from the
// run's own journal. Bundles are built from this source tree as the upgrade tests do.
import { loadavg } from 'node:os';
import { readJournal } from '../src/upgrade/engine/journal.ts';
import { sql } from 'kysely';
import { buildBundles, installRelease, withInstallDatabase } from '../test/upgrade/install.ts';
import { benchSize } from './helpers.ts';

const DEVICES = benchSize('BENCH_UPGRADE_DEVICES', 50_000, 5, { devices: true });

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
  const inst = await installRelease(bundles.vN, bundles.versionN, { devices: DEVICES, postgresUrl: url, snapshotCopyFromMb: null });
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
    const r = await inst.cairn(['upgrade', 'bundle', bundles.vN1]);
    if (r.code !== 0) throw new Error(`upgrade failed:\n${r.out}`);
    const j = readJournal(inst.layout.journalFile)!;
    const at = (name: string, edge: 'started' | 'ended') => Date.parse(j.steps.find((s) => s.name === name)![edge]!);
    for (const s of j.steps) {
      const secs = s.ended ? (Date.parse(s.ended) - Date.parse(s.started)) / 1000 : NaN;
      console.log(`  ${s.name.padEnd(10)} ${secs.toFixed(2).padStart(8)} s  ${s.detail}`);
    }
    const total = (Date.parse(j.finishedAt!) - Date.parse(j.startedAt)) / 1000;
    const downtime = (at('resume', 'ended') - at('quiesce', 'started')) / 1000;
    console.log(`upgrade ${bundles.versionN} → ${bundles.versionN1}: total ${total.toFixed(1)} s, downtime (quiesce → resume, 503 window) ${downtime.toFixed(1)} s; load average ${loadavg()[0]!.toFixed(2)}`);
  } finally {
    await inst.close();
  }
}
