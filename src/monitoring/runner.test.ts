// The check runner against real sockets on 127.0.0.1: TCP listeners, a DNS responder, a silent UDP port and
// closed ports; a port closed mid-test goes down after the fall threshold. The schedule is driven with an
// explicit clock instead of waiting for the interval.
import { createServer, type Server } from 'node:net';
import { createSocket, type Socket } from 'node:dgram';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Client, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics } from '../../test/helpers/inventory.ts';
import { CheckRunner, foldResult, pruneCheckResults } from './runner.ts';
import { probeTcp, probeUdp } from './probes.ts';
import { inProcessSupervisor, setSupervisor, SystemdSupervisor, type ManagedWorker } from './supervisor.ts';

let h: Harness;
let alice: Client;
const closers: Array<() => void> = [];

function tcpListener(): Promise<{ server: Server; port: number }> {
  return new Promise((resolve) => {
    const server = createServer((s) => s.destroy());
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}
function udpSocket(onMessage?: (msg: Buffer, rinfo: { port: number; address: string }, sock: Socket) => void): Promise<{ sock: Socket; port: number }> {
  return new Promise((resolve) => {
    const sock = createSocket('udp4');
    if (onMessage) sock.on('message', (m, r) => onMessage(m, r, sock));
    sock.bind(0, '127.0.0.1', () => resolve({ sock, port: sock.address().port }));
  });
}
async function closedTcpPort(): Promise<number> {
  const { server, port } = await tcpListener();
  await new Promise((r) => server.close(r));
  return port;
}
async function closedUdpPort(): Promise<number> {
  const { sock, port } = await udpSocket();
  await new Promise<void>((r) => sock.close(() => r()));
  return port;
}

beforeAll(async () => {
  h = await startHarness();
  alice = h.as('alice');
});
afterAll(async () => {
  for (const c of closers) c();
  await h?.close();
});

describe('probes', () => {
  it('TCP: open is up, closed is down', async () => {
    const { server, port } = await tcpListener();
    closers.push(() => server.close());
    expect((await probeTcp('127.0.0.1', port, 1000)).status).toBe('up');
    expect((await probeTcp('127.0.0.1', await closedTcpPort(), 1000)).status).toBe('down');
  });

  it('UDP: port-unreachable is down, silence unknown, a reply up', async () => {
    expect((await probeUdp('127.0.0.1', await closedUdpPort(), 500)).status).toBe('down');
    const silent = await udpSocket();
    closers.push(() => silent.sock.close());
    expect((await probeUdp('127.0.0.1', silent.port, 300)).status).toBe('unknown');
    const echo = await udpSocket((m, r, s) => s.send(m, r.port, r.address));
    closers.push(() => echo.sock.close());
    expect((await probeUdp('127.0.0.1', echo.port, 500)).status).toBe('up');
  });

  it('the state machine: rise and fall thresholds, unknown changes nothing', () => {
    let s = { state: 'unknown' as const, consecutiveOk: 0, consecutiveFail: 0 } as Parameters<typeof foldResult>[0];
    s = foldResult(s, 'up', 2, 2);
    expect(s.state).toBe('unknown');
    s = foldResult(s, 'up', 2, 2);
    expect(s.state).toBe('up');
    s = foldResult(s, 'down', 2, 2);
    expect(s.state).toBe('up');
    s = foldResult(s, 'unknown', 2, 2);
    expect(s).toMatchObject({ state: 'up', consecutiveFail: 1 });
    s = foldResult(s, 'down', 2, 2);
    expect(s.state).toBe('down');
  });
});

describe('runner against real listeners', () => {
  it('records states, results and events; a port closed mid-test goes down after the fall threshold', async () => {
    const open = await tcpListener();
    const toClose = await tcpListener();
    const closed = await closedTcpPort();
    // A DNS responder: answers with the query id and the response bit, like a name server would.
    const dns = await udpSocket((m, r, s) => {
      const answer = Buffer.from(m);
      answer[2] = answer[2]! | 0x80;
      s.send(answer, r.port, r.address);
    });
    const udpClosed = await closedUdpPort();
    closers.push(() => open.server.close(), () => dns.sock.close());

    const b = await inventoryBasics(alice, ['eth0']);
    const dev = await createDevice(alice, b, 'runner-dev');
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0].id as string;
    const ip = await created(alice, '/api/ip-addresses/', { address: '127.0.0.1/8', assigned_interface: iface });
    await alice.patch(`/api/devices/${dev.id}/`, { primary_ip4: ip.id });
    // Local ports are random, so templates are made by hand; the DNS one is udp-53 pointed at our responder's port.
    const ports: Record<string, [string, number]> = { open: ['tcp', open.port], flap: ['tcp', toClose.port], closed: ['tcp', closed], dns: ['udp', dns.port], udpClosed: ['udp', udpClosed] };
    const ids: Record<string, string> = {};
    for (const [name, [kind, port]] of Object.entries(ports)) {
      const tpl = await created(alice, '/api/check-templates/', { name, slug: `t-${name}`, kind, port, interval_seconds: 60, timeout_ms: 500 });
      ids[name] = (await created(alice, '/api/check-assignments/', { template: tpl.id, ip_address: ip.id })).id;
    }
    const runner = new CheckRunner(h.database.db, { concurrency: 4 });
    const state = async () => {
      const { rows } = await sql<{ id: string; state: string; last_result: string }>`SELECT id, state, last_result FROM check_assignments WHERE id = ANY(${Object.values(ids)}::uuid[])`.execute(h.database.db);
      const byId = new Map(rows.map((r) => [r.id, r]));
      return Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, `${byId.get(id)!.state}/${byId.get(id)!.last_result}`]));
    };
    let clock = Date.now();
    const tick = async () => {
      const round = await runner.runDue(new Date(clock));
      clock += 61_000;
      return round;
    };
    // Nothing is due twice within the interval.
    expect((await tick()).checked).toBe(5);
    expect((await runner.runDue(new Date(clock - 60_000))).checked).toBe(0);
    expect(await state()).toEqual({ open: 'unknown/up', flap: 'unknown/up', closed: 'unknown/down', dns: 'unknown/up', udpClosed: 'unknown/down' });
    await tick();
    expect(await state()).toEqual({ open: 'up/up', flap: 'up/up', closed: 'down/down', dns: 'up/up', udpClosed: 'down/down' });

    await new Promise((r) => toClose.server.close(r));
    await tick();
    expect((await state()).flap).toBe('up/down');
    await tick();
    expect((await state()).flap).toBe('down/down');

    const events = (await alice.get(`/api/check-events/?assignment=${ids.flap}`)).json().results as Array<{ from_state: string; to_state: string }>;
    expect(events.map((e) => `${e.from_state}>${e.to_state}`)).toEqual(['up>down', 'unknown>up']);
    const results = (await alice.get(`/api/check-results/?assignment=${ids.flap}`)).json();
    expect(results.count).toBe(4);
    expect((await alice.get(`/api/check-assignments/${ids.open}/`)).json()).toMatchObject({ state: 'up', last_result: 'up' });
    // Another tenant sees none of it.
    expect((await h.as('bob').get('/api/check-results/')).json().count).toBe(0);
    expect((await h.as('bob').get(`/api/check-assignments/${ids.open}/`)).statusCode).toBe(404);
    // Read-only history: no writes.
    expect([404, 405]).toContain((await alice.post('/api/check-results/', {})).statusCode);

    // Bounded history.
    await sql`UPDATE check_results SET created = now() - interval '8 days' WHERE assignment_id = ${ids.flap}`.execute(h.database.db);
    expect(await pruneCheckResults(h.database.db, 7)).toBe(4);
  });
});

describe('worker endpoints and supervisors', () => {
  it('lists and restarts in-process workers for a superuser only', async () => {
    const log: string[] = [];
    const fake: ManagedWorker = {
      key: 'fake',
      start: async () => void log.push('start'),
      stop: async () => void log.push('stop'),
      describe: async () => ({ running: true, detail: 'test', queues: [{ name: 'q', queued: 0 }] }),
    };
    inProcessSupervisor().register(fake);
    try {
      expect((await alice.get('/api/system/services/workers/')).statusCode).toBe(403);
      const admin = h.as('admin');
      const list = await admin.get('/api/system/services/workers/');
      expect(list.statusCode, list.body).toBe(200);
      expect(list.json().results).toContainEqual({ key: 'fake', kind: 'in-process', running: true, detail: 'test', queues: [{ name: 'q', queued: 0 }] });
      expect((await admin.post('/api/system/services/fake/restart/')).json()).toEqual({ restarted: ['fake'] });
      expect((await admin.post('/api/system/services/nope/restart/')).statusCode).toBe(404);
      expect((await alice.post('/api/system/services/restart-all/')).statusCode).toBe(403);
      expect((await admin.post('/api/system/services/restart-all/')).json().restarted).toContain('fake');
      expect(log).toEqual(['stop', 'start', 'stop', 'start']);
    } finally {
      inProcessSupervisor().unregister('fake');
    }
  });

  it('systemd: restarts units through systemctl (a stand-in script on PATH)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cairn-systemctl-'));
    const script = join(dir, 'systemctl');
    writeFileSync(script, `#!/bin/sh\necho "$@" >> "${dir}/calls"\n[ "$1" = is-active ] && echo active\nexit 0\n`);
    chmodSync(script, 0o755);
    const oldPath = process.env.PATH;
    process.env.PATH = `${dir}:${oldPath}`;
    try {
      const sd = new SystemdSupervisor({ monitoring: 'cairn-worker.service' });
      setSupervisor(sd);
      const admin = h.as('admin');
      expect((await admin.get('/api/system/services/workers/')).json().results).toEqual([
        { key: 'monitoring', kind: 'systemd', running: true, detail: 'cairn-worker.service: active', queues: [] },
      ]);
      expect((await admin.post('/api/system/services/monitoring/restart/')).statusCode).toBe(200);
      expect(readFileSync(join(dir, 'calls'), 'utf8')).toContain('restart cairn-worker.service');
    } finally {
      process.env.PATH = oldPath;
      setSupervisor(inProcessSupervisor());
    }
  });
});
