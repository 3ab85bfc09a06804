import { Session } from 'node:inspector/promises';
import { createEnvironment } from '../src/templating/engine/index.ts';
const TEMPLATE =
  '{% for row in rows %}{{ row.id }},{{ row.name|upper }},{{ row.site|lower }},{{ row.status|default("none") }},' +
  '{{ row.address }},{{ row.vlan }},{% if row.active %}yes{% else %}no{% endif %}' +
  '{% for tag in row.tags %};{{ tag }}{% endfor %}\n{% endfor %}';
const rows: Record<string, unknown>[] = [];
for (let i = 0; i < 50000; i++) rows.push({ id: i, name: `device-${i}`, site: `Site-${i % 50}`, status: i % 7 === 0 ? null : 'active', address: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}/24`, vlan: 100 + (i % 400), active: i % 3 !== 0, tags: [`t${i % 5}`, `r${i % 11}`] });
const env = createEnvironment();
const t = env.compile(TEMPLATE, 'b');
if (process.env.SRC) console.log(String((t as any).fn ?? (t as any).code ?? Object.keys(t as any)));
for (let i = 0; i < Number(process.env.WARM ?? 3); i++) await t.render({ rows });
let best = 1e9;
for (let i = 0; i < Number(process.env.RUNS ?? 5); i++) { const s = performance.now(); await t.render({ rows }); best = Math.min(best, performance.now() - s); if (process.env.V) console.log((performance.now() - s).toFixed(0)); }
console.log('best ms', best.toFixed(1));
if (process.env.PROF) {
  const session = new Session(); session.connect();
  await session.post('Profiler.enable'); await session.post('Profiler.setSamplingInterval', { interval: 100 }); await session.post('Profiler.start');
  for (let i = 0; i < 10; i++) await t.render({ rows });
  const { profile } = await session.post('Profiler.stop');
  const self = new Map<string, number>(); const counts = new Map<number, number>(); const dt = profile.timeDeltas!;
  profile.samples!.forEach((id, i) => counts.set(id, (counts.get(id) ?? 0) + (dt[i] ?? 0)));
  let total = 0;
  for (const n of profile.nodes) { const c = counts.get(n.id) ?? 0; total += c; const k = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.replace(/.*\//, '')}:${n.callFrame.lineNumber}`; self.set(k, (self.get(k) ?? 0) + c); }
  [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 30).forEach(([k, v]) => console.log(`${(v / total * 100).toFixed(1).padStart(5)}% ${k}`));
}
