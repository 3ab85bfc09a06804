// Export-template render of 50,000 demo devices (name, site, role, platform, primary IP |host, serial, a custom
// field) through the real API, against references measured in the same run:
//  1. PostgreSQL `COPY (SELECT … the same joins …) TO STDOUT WITH CSV` through psql (target: render ≤ 1.5× COPY, issue
//     27), the render read by curl as COPY is by psql;
//  2. the same rows read by node-pg in one query, the client Cairn reads with: what any in-process render must at
//     least spend before it renders a byte (the render's ratio to it is printed beside the one to COPY);
//  3. Python Jinja2 (SandboxedEnvironment) rendering the same rows from preloaded dicts, for reference;
//  4. RSS growth of the process while the render streams (target < 150 MB).
// Two templates: TEMPLATE, which PostgreSQL renders (src/templating/pushdown.ts), and ENGINE_TEMPLATE, a real CSV
// export's row (a conditional and two filters) that only the engine renders, its ratio to COPY printed too (goal
// ≤ 2×, issue 56). Which path each takes is checked (planPushdown), not assumed.
// Run: BENCH_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench export
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { buildApp } from '../src/app.ts';
import { createToken, createUser } from '../src/core/accounts.ts';
import { DEMO_SUPPORT_ROLES, generateDemoData } from '../src/system/demo-data.ts';
import { systemContext } from '../src/core/context.ts';
import { requireModel } from '../src/core/registry.ts';
import { templateEnvironment } from '../src/templating/environment.ts';
import { planPushdown } from '../src/templating/pushdown.ts';
import { benchSize, openBenchDatabase, fmt, loadNote, TINY } from './helpers.ts';

/** The list filter leaving out the support devices demo data adds (repeated role__n: none of them). */
const NETWORK_ONLY = DEMO_SUPPORT_ROLES.map((r) => `role__n=${r}`).join('&');
const DEVICES = benchSize('BENCH_EXPORT_DEVICES', 50_000, 5, { devices: true });
const TEMPLATE =
  '{% for d in objects %}{{ d.name }},{{ d.site.name }},{{ d.role.name }},{{ d.platform.name if d.platform else "" }},' +
  '{{ d.primary_ip|host if d.primary_ip else "" }},{{ d.serial }},{{ d.custom_fields.support_tier }}\n{% endfor %}';

// The same columns, as an export a person writes: the name upper-cased, the role lower-cased, the platform or
// "none" by an {% if %} block. The filters and the block keep it from PostgreSQL: the engine renders every row.
const ENGINE_TEMPLATE =
  '{% for d in objects %}{{ d.name|upper }},{{ d.site.name }},{{ d.role.name|lower }},' +
  '{% if d.platform %}{{ d.platform.name }}{% else %}none{% endif %},' +
  '{{ d.primary_ip|host if d.primary_ip else "" }},{{ d.serial }},{{ d.custom_fields.support_tier }}\n{% endfor %}';

function copyQuery(tenantId: string): string {
  return `SELECT d.name, s.name, r.name, p.name, host(ip.address), d.serial, d.custom_fields->>'support_tier'
    FROM devices d JOIN sites s ON s.id = d.site_id JOIN device_roles r ON r.id = d.role_id
    LEFT JOIN platforms p ON p.id = d.platform_id
    LEFT JOIN ip_addresses ip ON ip.id = coalesce(d.primary_ip4_id, d.primary_ip6_id)
    WHERE d.tenant_id = '${tenantId}' AND r.slug <> ALL(ARRAY[${DEMO_SUPPORT_ROLES.map((r) => `'${r}'`).join(', ')}]) ORDER BY d.name, d.id`;
}

const PYTHON = `
import json, sys, time
from jinja2.sandbox import SandboxedEnvironment
rows = json.load(open(sys.argv[2]))
env = SandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
env.filters['host'] = lambda v: str(v['address'] if isinstance(v, dict) else v).split('/')[0]
t = env.from_string(sys.argv[1])
t.render(objects=rows[:1000])
best = None
for _ in range(3):
    start = time.perf_counter()
    out = t.render(objects=rows, count=len(rows))
    took = time.perf_counter() - start
    best = took if best is None or took < best else best
print(json.dumps({'seconds': best, 'length': len(out)}))
`;

/** GETs `url` with curl, discarding the body: its status and the bytes it read. */
function curlDiscard(url: string, authorization: string): Promise<{ status: number; bytes: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{size_download}', '-H', `authorization: ${authorization}`, url]);
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`curl failed (${code}): ${err.trim()}`));
      const [status, bytes] = out.trim().split(' ').map(Number);
      resolve({ status: status!, bytes: bytes! });
    });
  });
}

export default async function run(): Promise<void> {
  const database = await openBenchDatabase();
  const tmp = mkdtempSync(join(tmpdir(), 'cairn-export-bench-'));
  try {
    const t0 = Date.now();
    const demo = await generateDemoData(database.db, { devices: DEVICES, tenantSlug: 'bench' });
    console.log(`${database.label}: ${DEVICES} demo devices in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await createUser(database.db, { username: 'bench', password: 'bench-password', isSuperuser: true, tenantIds: [demo.tenantId] });
    const token = await createToken(database.db, { username: 'bench', tenantSlug: 'bench' });
    const app = await buildApp({ database });
    const address = await app.listen({ host: '127.0.0.1', port: 0 });
    const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
    const created = await fetch(`${address}/api/export-templates/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench-csv', object_type: 'dcim.device', template_code: TEMPLATE, mime_type: 'text/csv', file_extension: 'csv' }),
    });
    if (created.status !== 201) throw new Error(`creating the template failed: ${await created.text()}`);
    const id = ((await created.json()) as { id: string }).id;
    const createdEngine = await fetch(`${address}/api/export-templates/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bench-csv-engine', object_type: 'dcim.device', template_code: ENGINE_TEMPLATE, mime_type: 'text/csv', file_extension: 'csv' }),
    });
    if (createdEngine.status !== 201) throw new Error(`creating the engine template failed: ${await createdEngine.text()}`);
    const engineId = ((await createdEngine.json()) as { id: string }).id;
    const pushedDown = (source: string) => planPushdown(systemContext(demo.tenantId), requireModel('dcim.device'), templateEnvironment().compile(source, 'bench').statements()) !== null;
    if (!pushedDown(TEMPLATE)) throw new Error('the pushdown template is no longer rendered by PostgreSQL');
    if (pushedDown(ENGINE_TEMPLATE)) throw new Error('the engine template is rendered by PostgreSQL: it no longer measures the engine');

    // The render, streamed to curl and discarded; RSS sampled while it runs. The client is a process of its own, as
    // psql is for COPY: reading the answer in this process cost a tenth of the render's CPU (930 against 830 ms).
    const renderOnce = async (templateId: string = id): Promise<{ ms: number; cpuMs: number; bytes: number; rssGrowthMb: number }> => {
      global.gc?.();
      const base = process.memoryUsage().rss;
      const cpu = process.cpuUsage();
      let peak = base;
      const sampler = setInterval(() => {
        peak = Math.max(peak, process.memoryUsage().rss);
      }, 5);
      const start = process.hrtime.bigint();
      // The network's devices, not the racks' and sites' support devices (patch panels, PDUs, console servers…
      // demo data adds): 50,000 rows, the most one render takes, and the rows COPY selects.
      const { status, bytes } = await curlDiscard(`${address}/api/export-templates/${templateId}/render/?${NETWORK_ONLY}`, headers.authorization);
      if (status !== 200) throw new Error(`render failed: ${status}`);
      const ms = Number(process.hrtime.bigint() - start) / 1e6;
      const used = process.cpuUsage(cpu);
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage().rss);
      return { ms, cpuMs: (used.user + used.system) / 1000, bytes, rssGrowthMb: (peak - base) / 1024 / 1024 };
    };
    const url = process.env.BENCH_DATABASE_URL;
    const copyUrl = url ? new URL(url) : null;
    if (copyUrl) copyUrl.pathname = `/cairn_bench_${process.pid}`;
    const copy = `\\copy (${copyQuery(demo.tenantId).replace(/\s+/g, ' ')}) TO STDOUT WITH CSV`;
    let copyLength = 0;
    const copyOnce = (): number => {
      const start = process.hrtime.bigint();
      const out = spawnSync('psql', [copyUrl!.toString(), '-X', '-q', '-c', copy], { encoding: 'utf8', maxBuffer: 1 << 28 });
      if (out.status !== 0) throw new Error(`psql COPY failed: ${out.stderr}`);
      copyLength = out.stdout.length;
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    // Warm-up, then rounds of render and COPY side by side: on a shared machine the load moves between rounds, so
    // each round's ratio is reported too (their median is the steadier figure), and the load before and after.
    const roundCount = benchSize('BENCH_EXPORT_ROUNDS', 5, 1);
    const loadBefore = loadNote();
    await renderOnce();
    if (copyUrl) copyOnce();
    // The rows as arrays, the least a pg client can build of them (objects cost more).
    const reader = copyUrl ? new pg.Client({ connectionString: copyUrl.toString() }) : null;
    await reader?.connect();
    const readOnce = async (): Promise<number> => {
      const start = process.hrtime.bigint();
      await reader!.query({ text: copyQuery(demo.tenantId), rowMode: 'array' });
      return Number(process.hrtime.bigint() - start) / 1e6;
    };
    if (reader) await readOnce();
    await renderOnce(engineId);
    const rounds: Array<{ render: Awaited<ReturnType<typeof renderOnce>>; engine: Awaited<ReturnType<typeof renderOnce>>; copyMs: number | null; readMs: number | null }> = [];
    for (let i = 0; i < roundCount; i++) {
      rounds.push({ render: await renderOnce(), engine: await renderOnce(engineId), copyMs: copyUrl ? copyOnce() : null, readMs: reader ? await readOnce() : null });
    }
    await reader?.end();
    const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const renderMs = median(rounds.map((r) => r.render.ms));
    const bytes = rounds[0]!.render.bytes;
    console.log(`API render (streamed): ${fmt(renderMs)} median of ${roundCount}, ${(bytes / 1024 / 1024).toFixed(1)} MiB, RSS growth ${Math.max(...rounds.map((r) => r.render.rssGrowthMb)).toFixed(1)} MB (target < 150 MB)`);
    // CPU time moves far less with the load than wall time does: the figure to compare changes with.
    console.log(`API render CPU of the server: ${fmt(median(rounds.map((r) => r.render.cpuMs)))} median; per round ${rounds.map((r) => r.render.cpuMs.toFixed(0)).join(', ')} ms`);
    if (copyUrl) {
      const copyMs = median(rounds.map((r) => r.copyMs!));
      const ratios = rounds.map((r) => r.render.ms / r.copyMs!);
      console.log(`PostgreSQL COPY … TO STDOUT WITH CSV (psql, incl. process start): ${fmt(copyMs)} median of ${roundCount}, ${(copyLength / 1024 / 1024).toFixed(1)} MiB`);
      console.log(`ratio API render / COPY: ${(renderMs / copyMs).toFixed(2)}× of the medians; per round ${ratios.map((r) => r.toFixed(2)).join(', ')}, median ${median(ratios).toFixed(2)}×, spread ${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}× (target ≤ 1.5×, issue 27); before: ${loadBefore}; after: ${loadNote()}`);
      const engineMs = median(rounds.map((r) => r.engine.ms));
      const engineRatios = rounds.map((r) => r.engine.ms / r.copyMs!);
      console.log(`engine render (an {% if %} and two filters a row, not pushed down): ${fmt(engineMs)} median, CPU ${fmt(median(rounds.map((r) => r.engine.cpuMs)))}, ` +
        `${(rounds[0]!.engine.bytes / 1024 / 1024).toFixed(1)} MiB, RSS growth ${Math.max(...rounds.map((r) => r.engine.rssGrowthMb)).toFixed(1)} MB; ratio engine render / COPY: ` +
        `${(engineMs / copyMs).toFixed(2)}× of the medians; per round ${engineRatios.map((r) => r.toFixed(2)).join(', ')} (goal ≤ 2×, issue 56); engine / pushdown ${(engineMs / renderMs).toFixed(2)}×`);
      const readMs = median(rounds.map((r) => r.readMs!));
      console.log(`node-pg reading the same rows in one query (row arrays): ${fmt(readMs)} median of ${roundCount}, ${(readMs / copyMs).toFixed(2)}× COPY; API render / that read: ${(renderMs / readMs).toFixed(2)}×`);
    } else {
      console.log('COPY reference needs BENCH_DATABASE_URL (PostgreSQL).');
      console.log(`engine render (an {% if %} and two filters a row, not pushed down): ${fmt(median(rounds.map((r) => r.engine.ms)))} median; engine / pushdown ${(median(rounds.map((r) => r.engine.ms)) / renderMs).toFixed(2)}×`);
    }

    // Python Jinja2 over the same rows as preloaded dicts.
    const { rows } = await sql<Record<string, string | null>>`SELECT d.name, s.name AS site, r.name AS role, p.name AS platform,
      host(ip.address) AS ip, d.serial, d.custom_fields AS cf
      FROM devices d JOIN sites s ON s.id = d.site_id JOIN device_roles r ON r.id = d.role_id
      LEFT JOIN platforms p ON p.id = d.platform_id LEFT JOIN ip_addresses ip ON ip.id = coalesce(d.primary_ip4_id, d.primary_ip6_id)
      WHERE d.tenant_id = ${demo.tenantId} AND r.slug <> 'patch-panel' ORDER BY d.name, d.id`.execute(database.db);
    const dicts = rows.map((r) => ({
      name: r.name,
      site: { name: r.site },
      role: { name: r.role },
      platform: r.platform === null ? null : { name: r.platform },
      primary_ip: r.ip === null ? null : { address: r.ip },
      serial: r.serial,
      custom_fields: r.cf,
    }));
    const file = join(tmp, 'rows.json');
    writeFileSync(file, JSON.stringify(dicts));
    const py = spawnSync('python3', ['-c', PYTHON, TEMPLATE, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
    if (py.status === 0) {
      const r = JSON.parse(py.stdout) as { seconds: number; length: number };
      console.log(`Python Jinja2 sandbox from preloaded dicts: ${fmt(r.seconds * 1000)} (${(r.length / 1024 / 1024).toFixed(1)} MiB); API render / Jinja2: ${(renderMs / (r.seconds * 1000)).toFixed(2)}×`);
    } else console.log(`Jinja2 reference unavailable: ${py.stderr.trim().split('\n').pop() ?? 'python3 failed'}`);
    await app.close();
  } finally {
    rmSync(tmp, { recursive: true, force: true });
    await database.close();
  }
}
