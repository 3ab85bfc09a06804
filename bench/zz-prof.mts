import autocannon from 'autocannon';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { openBenchDatabase } from './helpers.ts';

const WRITE_HOOK = fileURLToPath(new URL('./load-tag-write.cjs', import.meta.url));
const database = await openBenchDatabase();
const app = await buildApp({ database });
await app.listen({ host: '127.0.0.1', port: 0 });
const { port } = app.server.address() as { port: number };
const demo = await generateDemoData(database.db, { devices: 2000, seed: 7, tenantSlug: 'p' });
await createUser(database.db, { username: 'p', password: 'load-bench-password', isSuperuser: true, tenantIds: [demo.tenantId] });
const token = await createToken(database.db, { username: 'p', tenantSlug: 'p' });
const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
const get = async (path: string) => (await (await fetch(`http://127.0.0.1:${port}${path}`, { headers })).json()) as { results: Array<{ id: string; name: string }> };
const sample = (await get('/api/devices/?limit=1&offset=7')).results[0]!;
const site = sample.name.split('-')[0]!;
const only = process.env.ONLY;
const reads = [
  '/api/devices/?limit=50', `/api/devices/?limit=50&q=${site}`, `/api/devices/${sample.id}/`, '/api/interfaces/?limit=50',
  `/api/interfaces/?limit=50&device_id=${sample.id}`, '/api/prefixes/?limit=50', `/api/search/?q=${site}-leaf`,
  '/api/ip-addresses/?limit=50', '/api/vlans/?limit=50', '/api/sites/?limit=50',
];
const requests = only ? [{ method: 'GET' as const, path: reads[Number(only)]! }] : Array.from({ length: 20 }, (_v, k) =>
  k === 19 ? { method: 'POST' as const, path: '/api/tags/', setupRequest: WRITE_HOOK } : { method: 'GET' as const, path: reads[k % reads.length]! });
const session = new Session();
session.connect();
const prof = process.env.PROF === '1';
if (prof) { await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 200 }); await session.post('Profiler.start'); }
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const result = await autocannon({ url: `http://127.0.0.1:${port}`, connections: Number(process.env.CONN ?? 100), duration: Number(process.env.SECS ?? 15), timeout: 10, headers, requests, workers: 1 } as autocannon.Options);
const cpu = process.cpuUsage(cpu0); const wall = performance.now() - t0;
console.log(`${result.requests.average} req/s p50 ${result.latency.p50} p99 ${result.latency.p99} total ${result.requests.total} non2xx ${result.non2xx}; process cpu ${((cpu.user + cpu.system) / 1000 / wall * 100).toFixed(0)}% (${((cpu.user + cpu.system) / 1000 / result.requests.total).toFixed(2)} ms/req)`);
if (prof) {
  const { profile } = await session.post('Profiler.stop');
  writeFileSync('/tmp/load.cpuprofile', JSON.stringify(profile));
  const self = new Map<string, number>();
  const dt = profile.timeDeltas!; const counts = new Map<number, number>();
  profile.samples!.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
  let total = 0;
  for (const n of profile.nodes) { const c = counts.get(n.id) ?? 0; total += c; const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\/(node_modules\/)?/, '')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + c); }
  [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 45).forEach(([k, v]) => console.log(`${(v / total * 100).toFixed(1).padStart(5)}% ${k}`));
}
await app.close(); await database.close();
