// Issue 52: `cairn import netbox` of a NetBox-shaped database of 50,000 devices (bench/netbox-generator.ts: NetBox's
// 4.1 demo plus generated sites, racks, devices, 22 interfaces a device, cables, addresses, prefixes and VLANs) into
// a fresh tenant of a fresh Cairn database: rows/s (objects created, by the report; goal >= 10,000 rows/s on
// PostgreSQL), the time, and the slowest steps. The import is the command's own function (importNetBox), in this
// process. NetBox lives in PostgreSQL: needs BENCH_DATABASE_URL (the Cairn side is a database on the same server).
// Run: BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres npm run bench -- netbox-import [--devices N]
import '../src/models.ts';
import { importNetBox } from '../src/netbox-import/importer.ts';
import { startCpuMeter } from './cpu-meter.ts';
import { benchSize, loadNote, openBenchDatabase } from './helpers.ts';
import { dropNetBoxDatabase, ensureNetBoxDemoTemplate, generateNetBox, netboxDemoDump } from './netbox-generator.ts';

const DEVICES = benchSize('BENCH_NETBOX_DEVICES', 50_000, 50, { devices: true });

export default async function run(): Promise<void> {
  const server = process.env.BENCH_DATABASE_URL;
  if (!server) {
    console.log('netbox-import: skipped (set BENCH_DATABASE_URL: NetBox databases are PostgreSQL)');
    return;
  }
  const dump = netboxDemoDump();
  if (!dump) {
    console.log('netbox-import: skipped (the NetBox 4.1 demo dump is not in shared/data/netbox/)');
    return;
  }
  let t = Date.now();
  await ensureNetBoxDemoTemplate(server, dump);
  const name = `cairn_nbbench_${process.pid}`;
  const source = await generateNetBox(server, name, DEVICES);
  const added = Object.entries(source.added).map(([table, n]) => `${table.replace(/^(dcim|ipam)_/, '')} ${n.toLocaleString('en-US')}`).join(', ');
  console.log(`NetBox database: the 4.1 demo + ${DEVICES.toLocaleString('en-US')} devices generated in ${((Date.now() - t) / 1000).toFixed(1)} s (${added})`);
  const database = await openBenchDatabase();
  try {
    // Each step's end, to name where the time goes.
    const steps: Array<{ line: string; at: number }> = [];
    t = Date.now();
    const meter = startCpuMeter();
    const report = await importNetBox(database, { url: source.url, tenantSlug: 'netbox', onProgress: (e) => steps.push({ line: e.line, at: Date.now() }) });
    const ms = Date.now() - t;
    const cpu = meter();
    const created = report.tables.reduce((sum, r) => sum + r.created, 0);
    const read = report.tables.reduce((sum, r) => sum + r.read, 0);
    const skipped = report.tables.reduce((sum, r) => sum + Object.values(r.skipped).reduce((a, b) => a + b, 0), 0);
    if (report.tables.find((r) => r.table === 'dcim_device')!.created < DEVICES) throw new Error('not every generated device was imported');
    console.log(`cairn import netbox (${database.label}): ${created.toLocaleString('en-US')} objects created of ${read.toLocaleString('en-US')} NetBox rows read` +
      `${skipped ? ` (${skipped} skipped)` : ''} in ${(ms / 1000).toFixed(1)} s: ${Math.round(created / (ms / 1000)).toLocaleString('en-US')} rows/s (goal >= 10,000 on PostgreSQL); ` +
      `${report.changeLogEntries.toLocaleString('en-US')} change-log entries; ${loadNote()}`);
    // On a shared machine the wall time is what the others leave over; the CPU each side spent is steadier.
    console.log(`CPU during the import: this process (the importer) ${(cpu.processMs / 1000).toFixed(1)} s${cpu.postgresMs === null ? '' : `, PostgreSQL ${(cpu.postgresMs / 1000).toFixed(1)} s`}` +
      `${cpu.machineBusy === null ? '' : `; the machine ${(cpu.machineBusy * 100).toFixed(0)} % busy`}`);
    const durations = steps.map((s, i) => ({ line: s.line, ms: s.at - (i === 0 ? t : steps[i - 1]!.at) })).sort((a, b) => b.ms - a.ms).slice(0, 6);
    console.log(`slowest steps: ${durations.map((d) => `${(d.ms / 1000).toFixed(1)} s ${d.line.split(':')[0]}`).join('; ')}`);
  } finally {
    await database.close();
    await dropNetBoxDatabase(server, name);
  }
}
