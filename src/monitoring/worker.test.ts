// The pg-boss worker on the embedded database, sharing the application's single pool: a croner tick enqueues a
// run, the queue's handler runs the due checks against a real listener.
import { createServer } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';
import { MonitoringWorker } from './worker.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

it('runs due checks from the queue and reports itself', async () => {
  const server = createServer((s) => s.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  const alice = h.as('alice');
  const b = await inventoryBasics(alice, ['eth0']);
  const dev = await createDevice(alice, b, 'worker-dev');
  const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0].id as string;
  const ip = await created(alice, '/api/ip-addresses/', { address: '127.0.0.1/8', assigned_interface: iface });
  await alice.patch(`/api/devices/${dev.id}/`, { primary_ip4: ip.id });
  const svc = await created(alice, '/api/services/', { device: dev.id, name: 'local', protocol_ports: { tcp: [port] }, monitored: true });
  expect(svc.check_count).toBe(1);

  const worker = new MonitoringWorker(h.database, { concurrency: 4, retentionDays: 7, tick: '* * * * * *' });
  await worker.start();
  try {
    let results = 0;
    for (let i = 0; i < 60 && results === 0; i++) {
      await new Promise((r) => setTimeout(r, 500));
      results = (await sql<{ n: number }>`SELECT count(*)::int AS n FROM check_results`.execute(h.database.db)).rows[0]!.n;
    }
    expect(results).toBeGreaterThan(0);
    const info = await worker.describe();
    expect(info.running).toBe(true);
    expect(info.queues[0]!.name).toBe('monitoring-run-checks');
  } finally {
    await worker.stop();
    server.close();
  }
  expect((await worker.describe()).running).toBe(false);
}, 90_000);
