// Config render of 500 demo devices × a bundle of three templates (interfaces, BGP, a JSON file) through
// `GET /api/devices/render/?bundle=role`: devices per second and the query count, against the query count of a
// 50-device render in the same run (it must be the same: relations load once for all devices). The demo's patch
// panels (two a site, `role__n=patch-panel`) are left out: with them 500 devices are 526, over the render's cap.
// Run: npm run bench config-render   (BENCH_CONFIG_DEVICES to change the size, at most 500 per call)
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { benchSize, openBenchDatabase, fmt } from './helpers.ts';
import { CONFIG_BENCH_TEMPLATES } from './config-render-fixture.ts';

const DEVICES = Math.min(500, benchSize('BENCH_CONFIG_DEVICES', 500, 5, { devices: true }));

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const demo = await generateDemoData(database.db, { devices: DEVICES, tenantSlug: 'bench' });
    await createUser(database.db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [demo.tenantId] });
    const token = await createToken(database.db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
    const call = async (method: 'GET' | 'POST', url: string, payload?: unknown) => {
      const res = await app.inject({ method, url, headers, ...(payload === undefined ? {} : { payload: payload as object }) });
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body.slice(0, 300)}`);
      return res;
    };
    const ids: string[] = [];
    for (const t of CONFIG_BENCH_TEMPLATES) ids.push((await call('POST', '/api/export-templates/', { ...t, object_type: 'dcim.device' })).json().id);
    const roles = (await call('GET', '/api/device-roles/?limit=100')).json().results as Array<{ id: string }>;
    await call('POST', '/api/config-bundles/', { name: 'fabric', templates: ids, roles: roles.map((r) => r.id) });

    const measure = async (url: string) => {
      const q0 = database.queryCount();
      const start = process.hrtime.bigint();
      const res = await call('GET', url);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const body = res.json() as { devices: Record<string, unknown>; skipped: Record<string, string> };
      return { ms, queries: database.queryCount() - q0, devices: Object.keys(body.devices).length, skipped: Object.keys(body.skipped).length, bytes: res.body.length };
    };
    await measure('/api/devices/render/?bundle=role&role__n=patch-panel'); // warm-up (compiles, caches)
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await measure('/api/devices/render/?bundle=role&role__n=patch-panel'));
    runs.sort((a, b) => a.ms - b.ms);
    const r = runs[1]!;
    // One site (40 devices) for the query-count comparison; the site filter itself may cost one lookup.
    const site = (await call('GET', '/api/sites/?limit=1')).json().results[0].id as string;
    const small = await measure(`/api/devices/render/?bundle=role&role__n=patch-panel&site=${site}`);
    console.log(`${database.label}: ${r.devices} devices × 3 files in ${fmt(r.ms)} (median of 3): ${(r.devices / (r.ms / 1000)).toFixed(0)} devices/s, ${(r.bytes / 1024).toFixed(0)} KiB, ${r.queries} queries`);
    console.log(`query count: ${r.queries} for ${r.devices} devices vs ${small.queries} for ${small.devices} devices (a fixed set of queries; a few are skipped when nothing references their rows, e.g. no VRFs, so the smaller call may differ by one or two)`);
    await app.close();
  } finally {
    await database.close();
  }
}
