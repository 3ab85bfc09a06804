import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { openBenchDatabase } from './helpers.ts';
const database = await openBenchDatabase();
const app = await buildApp({ database });
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
const demo = await generateDemoData(database.db, { devices: Number(process.env.DEV ?? 2000), seed: 7, tenantSlug: 'p' });
await createUser(database.db, { username: 'p', password: 'load-bench-password', isSuperuser: true, tenantIds: [demo.tenantId] });
const token = await createToken(database.db, { username: 'p', tenantSlug: 'p' });
const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
const get = async (path: string) => (await (await fetch(`http://127.0.0.1:${port}${path}`, { headers })).json()) as { results: Array<{ id: string; name: string }> };
const sample = (await get('/api/devices/?limit=1&offset=7')).results[0]!;
const site = sample.name.split('-')[0]!;
const reads = [
  '/api/devices/?limit=50', `/api/devices/?limit=50&q=${site}`, `/api/devices/${sample.id}/`, '/api/interfaces/?limit=50',
  `/api/interfaces/?limit=50&device_id=${sample.id}`, '/api/prefixes/?limit=50', `/api/search/?q=${site}-leaf`,
  '/api/ip-addresses/?limit=50', '/api/vlans/?limit=50', '/api/sites/?limit=50',
];
const N = Number(process.env.N ?? 100);
let tot = 0;
for (const path of process.env.PROF ? [] : reads) {
  for (let i = 0; i < 20; i++) await get(path);
  const q0 = database.queryCount();
  const c0 = process.cpuUsage(); const t0 = performance.now();
  for (let i = 0; i < N; i++) await get(path);
  const c = process.cpuUsage(c0); const ms = (c.user + c.system) / 1000 / N; tot += ms;
  console.log(`${((database.queryCount() - q0) / N).toFixed(1).padStart(5)} q  ${ms.toFixed(2).padStart(6)} cpu-ms  ${((performance.now() - t0) / N).toFixed(2).padStart(6)} wall-ms  ${path.replace(sample.id, ':id')}`);
}
console.log(`sum cpu-ms ${tot.toFixed(2)}`);
if (process.env.PROF) {
  const { Session } = await import('node:inspector/promises');
  const path = reads[Number(process.env.PROF)]!;
  const r = await fetch(`http://127.0.0.1:${port}${path}`, { headers }); console.log('bytes', (await r.text()).length);
  const session = new Session(); session.connect();
  await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start');
  for (let i = 0; i < 300; i++) await get(path);
  const { profile } = await session.post('Profiler.stop');
  (await import('node:fs')).writeFileSync('/tmp/ep.cpuprofile', JSON.stringify(profile));
  const self = new Map<string, number>(); const counts = new Map<number, number>(); const dt = profile.timeDeltas!;
  profile.samples!.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
  let total = 0;
  for (const n of profile.nodes) { const c = counts.get(n.id) ?? 0; total += c; const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(node_modules\/)?/, '')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + c); }
  [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 40).forEach(([k, v]) => console.log(`${(v / total * 100).toFixed(1).padStart(5)}% ${k}`));
}
await app.close(); await database.close();
