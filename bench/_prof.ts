import pg from 'pg';
import '../src/models.ts';
import { importNetBox } from '../src/netbox-import/importer.ts';
import { openBenchDatabase } from './helpers.ts';
import { dropNetBoxDatabase, ensureNetBoxDemoTemplate, generateNetBox, netboxDemoDump } from './netbox-generator.ts';
const server = process.env.BENCH_DATABASE_URL!;
await ensureNetBoxDemoTemplate(server, netboxDemoDump()!);
const name = `cairn_nbprof_${process.pid}`;
const source = await generateNetBox(server, name, Number(process.env.N ?? 2000));
const stats = new Map<string, { n: number; ms: number }>();
const orig = pg.Client.prototype.query as any;
(pg.Client.prototype as any).query = function (this: any, ...args: any[]) {
  const text = typeof args[0] === 'string' ? args[0] : args[0]?.text ?? '?';
  const key = String(text).replace(/\s+/g, ' ').slice(0, 160);
  const t = performance.now();
  const r = orig.apply(this, args);
  if (r && typeof r.then === 'function') {
    return r.then((v: any) => { const s = stats.get(key) ?? { n: 0, ms: 0 }; s.n++; s.ms += performance.now() - t; stats.set(key, s); return v; });
  }
  return r;
};
const database = await openBenchDatabase();
stats.clear();
const t = Date.now();
const report = await importNetBox(database, { url: source.url, tenantSlug: 'netbox' });
console.log('import ms', Date.now() - t, report.tables.reduce((a, r) => a + r.created, 0));
(pg.Client.prototype as any).query = orig;
const top = [...stats.entries()].sort((a, b) => b[1].ms - a[1].ms).slice(0, 30);
for (const [k, v] of top) console.log(v.ms.toFixed(0).padStart(7), String(v.n).padStart(5), k);
await database.close();
await dropNetBoxDatabase(server, name);
