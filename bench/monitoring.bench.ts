// Monitoring: reconcile 10,000 monitored services of demo data from scratch (time, queries, queries per
// batch), and the executor running 5,000 TCP checks against local listeners, half on closed ports.
import { createServer, type Server } from 'node:net';
import { performance } from 'node:perf_hooks';
import { sql } from 'kysely';
import '../src/models.ts';
import { generateDemoData } from '../src/system/demo-data.ts';
import { RECONCILE_BATCH, reconcileServiceChecks } from '../src/monitoring/service.ts';
import { mapLimited } from '../src/monitoring/runner.ts';
import { probeTcp } from '../src/monitoring/probes.ts';
import { benchSize, openBenchDatabase } from './helpers.ts';

const DEVICES = benchSize('BENCH_DEVICES', 5000, 5, { devices: true });
const CHECKS = benchSize(null, 5000, 40);
const LISTENERS = benchSize(null, 100, 4);

async function reconcileBench(): Promise<void> {
  const database = await openBenchDatabase();
  try {
    const demo = await generateDemoData(database.db, { devices: DEVICES });
    // Two monitored services per device on its primary IP: ssh+https (tcp) and dns (tcp+udp 53).
    await sql`INSERT INTO services (id, numid, tenant_id, device_id, name, protocol, ports, protocol_ports, monitored)
      SELECT gen_random_uuid(), row_number() OVER (), d.tenant_id, d.id, s.name, 'tcp', s.ports, s.map, true
      FROM devices d CROSS JOIN (VALUES ('ssh-https', ARRAY[22, 443], '{"tcp": [22, 443]}'::jsonb), ('dns', ARRAY[53], '{"tcp": [53], "udp": [53]}'::jsonb)) AS s(name, ports, map)
      WHERE d.tenant_id = ${demo.tenantId}`.execute(database.db);
    const { rows } = await sql<{ id: string }>`SELECT id FROM services ORDER BY created, id`.execute(database.db);
    const withIp = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM devices WHERE primary_ip4_id IS NOT NULL`.execute(database.db)).rows[0]!.n;
    const q0 = database.queryCount();
    const t0 = performance.now();
    await database.db.transaction().execute((tx) => reconcileServiceChecks(tx, rows.map((r) => r.id)));
    const ms = performance.now() - t0;
    const queries = database.queryCount() - q0;
    const made = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM check_assignments`.execute(database.db)).rows[0]!.n;
    const batches = Math.ceil(rows.length / RECONCILE_BATCH);
    console.log(`reconcile ${rows.length} monitored services (${withIp} devices with a primary IP) from scratch on ${database.label}: ${ms.toFixed(0)} ms, ${made} assignments, ${queries} queries in ${batches} batches of ${RECONCILE_BATCH} (${(queries / batches).toFixed(1)} per batch)`);
    const q1 = database.queryCount();
    const t1 = performance.now();
    await database.db.transaction().execute((tx) => reconcileServiceChecks(tx, rows.map((r) => r.id)));
    console.log(`reconcile again (idempotent, nothing to do): ${(performance.now() - t1).toFixed(0)} ms, ${database.queryCount() - q1} queries`);
  } finally {
    await database.close();
  }
}

async function executorBench(): Promise<void> {
  const listeners: Server[] = [];
  const open: number[] = [];
  const closed: number[] = [];
  for (let i = 0; i < LISTENERS; i++) {
    const server = createServer((s) => s.destroy());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as { port: number }).port;
    if (i % 2 === 0) {
      listeners.push(server);
      open.push(port);
    } else {
      await new Promise((r) => server.close(r));
      closed.push(port);
    }
  }
  const targets = Array.from({ length: CHECKS }, (_v, i) => (i % 2 === 0 ? open[i % open.length]! : closed[i % closed.length]!));
  for (const concurrency of [50, 200]) {
    const t0 = performance.now();
    const results = await mapLimited(targets, concurrency, (port) => probeTcp('127.0.0.1', port, 2000));
    const s = (performance.now() - t0) / 1000;
    const up = results.filter((r) => r.status === 'up').length;
    console.log(
      `executor: ${CHECKS} TCP checks (concurrency ${concurrency}, ${up} up, ${results.length - up} down) in ${s.toFixed(2)} s = ${(CHECKS / s).toFixed(0)} checks/s; ` +
        `${s < 60 ? 'fits' : 'does NOT fit'} one 60 s interval (${((s / 60) * 100).toFixed(1)}% of it)`,
    );
  }
  for (const l of listeners) l.close();
}

export default async function (): Promise<void> {
  await executorBench();
  await reconcileBench();
}
