// Monitored services follow their target address when it goes away or changes in bulk: deleting an address
// (one, or a bulk delete) or moving a service's own address off its device moves the checks of the services
// that targeted it to their next target at once, and a bulk update of devices' primary IPs reconciles all their
// services in one go (a constant number of queries).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Client, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';

let h: Harness;
let alice: Client;
let basics: Basics;
let n = 0;

beforeAll(async () => {
  h = await startHarness();
  alice = h.as('alice');
  basics = await inventoryBasics(alice, ['eth0', 'eth1']);
});
afterAll(async () => {
  await h?.close();
});

interface Fixture {
  device: string;
  ip4: string;
  ip6: string;
  own: string;
}

/** A device with a primary IPv4 and IPv6 on eth0 and a third address on eth1 (not primary). */
async function device(): Promise<Fixture> {
  n++;
  const d = await createDevice(alice, basics, `retarget-${n}`);
  const ifaces = (await alice.get(`/api/interfaces/?device=${d.id}`)).json().results as Array<{ id: string; name: string }>;
  const eth0 = ifaces.find((i) => i.name === 'eth0')!.id;
  const eth1 = ifaces.find((i) => i.name === 'eth1')!.id;
  const ip4 = await created(alice, '/api/ip-addresses/', { address: `10.77.${n}.1/24`, assigned_interface: eth0 });
  const ip6 = await created(alice, '/api/ip-addresses/', { address: `2001:db8:77:${n}::1/64`, assigned_interface: eth0 });
  const own = await created(alice, '/api/ip-addresses/', { address: `10.78.${n}.1/24`, assigned_interface: eth1 });
  expect((await alice.patch(`/api/devices/${d.id}/`, { primary_ip4: ip4.id, primary_ip6: ip6.id })).statusCode).toBe(200);
  return { device: d.id, ip4: ip4.id, ip6: ip6.id, own: own.id };
}

async function service(deviceId: string, extra: Record<string, unknown> = {}): Promise<string> {
  return (await created(alice, '/api/services/', { device: deviceId, name: `ssh-${++n}`, protocol_ports: { tcp: [22] }, monitored: true, ...extra })).id;
}

/** The addresses a service's checks are on. */
async function checkedAddresses(serviceId: string): Promise<string[]> {
  const { rows } = await sql<{ ip: string }>`SELECT ip_address_id AS ip FROM check_assignments WHERE service_id = ${serviceId}`.execute(h.database.db);
  return rows.map((r) => r.ip);
}

describe('monitored services when their target address goes', () => {
  it('a deleted primary IPv4 moves the checks of services falling back to it onto the primary IPv6', async () => {
    const f = await device();
    const svc = await service(f.device);
    expect(await checkedAddresses(svc)).toEqual([f.ip4]);
    expect((await alice.delete(`/api/ip-addresses/${f.ip4}/`)).statusCode).toBe(204);
    expect(await checkedAddresses(svc)).toEqual([f.ip6]);
    expect((await alice.get(`/api/services/${svc}/`)).json()).toMatchObject({ check_count: 1 });
  });

  it('a deleted own address makes the service fall back to the device’s primary IP', async () => {
    const f = await device();
    const svc = await service(f.device, { ip_address: f.own });
    expect(await checkedAddresses(svc)).toEqual([f.own]);
    expect((await alice.delete(`/api/ip-addresses/${f.own}/`)).statusCode).toBe(204);
    expect(await checkedAddresses(svc)).toEqual([f.ip4]);
    expect((await alice.get(`/api/services/${svc}/`)).json()).toMatchObject({ ip_address: null });
  });

  it('an own address moved off the device (unassigned) makes the service fall back to the primary IP', async () => {
    const f = await device();
    const svc = await service(f.device, { ip_address: f.own });
    const res = await alice.patch(`/api/ip-addresses/${f.own}/`, { assigned_interface: null });
    expect(res.statusCode, res.body).toBe(200);
    expect(await checkedAddresses(svc)).toEqual([f.ip4]);
    expect((await alice.get(`/api/services/${svc}/`)).json()).toMatchObject({ ip_address: null });
    // Moving it between the device's own interfaces changes nothing.
    const other = await device();
    const kept = await service(other.device, { ip_address: other.own });
    const eth0 = (await alice.get(`/api/interfaces/?device=${other.device}`)).json().results.find((i: { name: string }) => i.name === 'eth0').id;
    expect((await alice.patch(`/api/ip-addresses/${other.own}/`, { assigned_interface: eth0 })).statusCode).toBe(200);
    expect(await checkedAddresses(kept)).toEqual([other.own]);
  });

  it('a bulk delete of addresses retargets every service at once; the last address gone leaves none', async () => {
    const a = await device();
    const b = await device();
    const onA = await service(a.device);
    const onB = await service(b.device, { ip_address: b.own });
    const res = await alice.post('/api/ip-addresses/bulk-delete/', { ids: [a.ip4, b.own] });
    expect(res.statusCode, res.body).toBe(200);
    expect(await checkedAddresses(onA)).toEqual([a.ip6]);
    expect(await checkedAddresses(onB)).toEqual([b.ip4]);
    expect((await alice.post('/api/ip-addresses/bulk-delete/', { ids: [a.ip6] })).statusCode).toBe(200);
    expect(await checkedAddresses(onA)).toEqual([]);
  });
});

describe('a bulk update of primary IPs', () => {
  it('reconciles every device’s services, with the same number of queries for 1 device as for 3', async () => {
    const fixtures: Array<Fixture & { svc: string }> = [];
    for (let i = 0; i < 8; i++) {
      const f = await device();
      fixtures.push({ ...f, svc: await service(f.device) });
    }
    const unsetIp4 = async (group: typeof fixtures) => {
      const before = h.database.queryCount();
      const res = await alice.post('/api/devices/bulk-update/', { ids: group.map((f) => f.device), fields: { primary_ip4: null } });
      expect(res.statusCode, res.body).toBe(200);
      return h.database.queryCount() - before;
    };
    await alice.get('/api/devices/?limit=1'); // warm the token cache
    // The maintenance flag is re-read every 2 s, so one call may carry one extra query: compare the smaller of two.
    const few = Math.min(await unsetIp4(fixtures.slice(0, 1)), await unsetIp4(fixtures.slice(1, 2)));
    const many = Math.min(await unsetIp4(fixtures.slice(2, 5)), await unsetIp4(fixtures.slice(5, 8)));
    expect(many).toBe(few);
    for (const f of fixtures) expect(await checkedAddresses(f.svc)).toEqual([f.ip6]);
  });
});
