// Services and the checks they own, through the API: the state table of "Monitored flag of a service", shared
// ports, cascades, device materialisation, bad input and tenant isolation.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Client, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { tableState } from '../../test/helpers/valid-body.ts';
import { requireModel } from '../core/registry.ts';
import { reconcileServiceChecks } from './service.ts';

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

/** A device with an address on eth0 (not yet primary), and that address's id. */
async function deviceWithAddress(): Promise<{ device: string; ip: string; iface: string; address: string }> {
  n++;
  const device = await createDevice(alice, basics, `mon-${n}`);
  const ifaces = (await alice.get(`/api/interfaces/?device=${device.id}`)).json().results as Array<{ id: string; name: string }>;
  const iface = ifaces.find((i) => i.name === 'eth0')!.id;
  const address = `10.${n}.0.1/24`;
  const ip = await created(alice, '/api/ip-addresses/', { address, assigned_interface: iface });
  return { device: device.id, ip: ip.id, iface, address: address.split('/')[0]! };
}

interface AssignmentRow {
  id: string;
  slug: string;
  ip_address_id: string;
  service_id: string | null;
}
async function assignmentsOn(ip: string): Promise<AssignmentRow[]> {
  const { rows } = await sql<AssignmentRow>`SELECT ca.id, ct.slug, ca.ip_address_id, ca.service_id FROM check_assignments ca
    JOIN check_templates ct ON ct.id = ca.template_id WHERE ca.ip_address_id = ${ip} ORDER BY ct.slug`.execute(h.database.db);
  return rows;
}

describe('services: the monitored state table', () => {
  it('parks at 0 checks without an IP, gets checks when the device gains a primary IP, and tears down when unmonitored', async () => {
    const d = await deviceWithAddress();
    const svc = await created(alice, '/api/services/', { device: d.device, name: 'web', protocol_ports: { tcp: [80, 443] }, monitored: true });
    expect(svc).toMatchObject({ check_count: 0, status: 'unknown', protocol: 'tcp', ports: [80, 443], monitored: true });

    // A device update that sets the primary IP reconciles its monitored services.
    expect((await alice.patch(`/api/devices/${d.device}/`, { primary_ip4: d.ip })).statusCode).toBe(200);
    expect((await assignmentsOn(d.ip)).map((a) => [a.slug, a.service_id])).toEqual([
      ['tcp-443', svc.id],
      ['tcp-80', svc.id],
    ]);
    const read = (await alice.get(`/api/services/${svc.id}/`)).json();
    expect(read).toMatchObject({ check_count: 2, status: 'unknown' });

    // A manual check on the same IP is never touched.
    const tpl = await created(alice, '/api/check-templates/', { name: 'SSH', slug: 'ssh-manual', kind: 'tcp', port: 22 });
    const manual = await created(alice, '/api/check-assignments/', { template: tpl.id, ip_address: d.ip });
    expect(manual.service).toBeNull();

    // Ports change: removed ports go, new ones come; idempotent on re-save.
    expect((await alice.patch(`/api/services/${svc.id}/`, { protocol_ports: { tcp: [443], udp: [53] } })).statusCode).toBe(200);
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual(['ssh-manual', 'tcp-443', 'udp-53']);
    expect((await alice.patch(`/api/services/${svc.id}/`, { description: 'again' })).statusCode).toBe(200);
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual(['ssh-manual', 'tcp-443', 'udp-53']);

    // monitored false: owned checks go, the manual one stays.
    const off = (await alice.patch(`/api/services/${svc.id}/`, { monitored: false })).json();
    expect(off.check_count).toBe(0);
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual(['ssh-manual']);

    // The legacy action: sets monitored and reconciles.
    const mon = await alice.post(`/api/services/${svc.id}/monitor/`);
    expect(mon.statusCode, mon.body).toBe(200);
    expect(mon.json()).toEqual({ monitored: 2, ip: d.address });
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual(['ssh-manual', 'tcp-443', 'udp-53']);

    // Primary IP removed: nothing resolves, owned checks go.
    expect((await alice.patch(`/api/devices/${d.device}/`, { primary_ip4: null })).statusCode).toBe(200);
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual(['ssh-manual']);
    const noIp = await alice.post(`/api/services/${svc.id}/monitor/`);
    expect(noIp.statusCode).toBe(400);
    expect((await alice.get(`/api/services/${svc.id}/`)).json()).toMatchObject({ monitored: true, check_count: 0 });
  });

  it('two services sharing a port share one assignment owned by the first; deleting the first hands it to the second at once', async () => {
    const d = await deviceWithAddress();
    await alice.patch(`/api/devices/${d.device}/`, { primary_ip4: d.ip });
    const first = await created(alice, '/api/services/', { device: d.device, name: 'https', protocol_ports: { tcp: [443] }, monitored: true });
    const second = await created(alice, '/api/services/', { device: d.device, name: 'api', protocol_ports: { tcp: [443, 8443] }, monitored: true });
    const tpl = await created(alice, '/api/check-templates/', { name: 'manual', slug: `manual-${n}`, kind: 'tcp', port: 9 });
    await created(alice, '/api/check-assignments/', { template: tpl.id, ip_address: d.ip });
    let rows = await assignmentsOn(d.ip);
    expect(rows.map((a) => [a.slug, a.service_id])).toEqual([
      [`manual-${n}`, null],
      ['tcp-443', first.id],
      ['tcp-8443', second.id],
    ]);
    expect((await alice.get(`/api/services/${first.id}/`)).json().check_count).toBe(1);
    expect((await alice.get(`/api/services/${second.id}/`)).json().check_count).toBe(1);
    // Re-saving the second does not steal the shared check.
    await alice.patch(`/api/services/${second.id}/`, { description: 'x' });
    expect((await assignmentsOn(d.ip)).find((a) => a.slug === 'tcp-443')!.service_id).toBe(first.id);

    expect((await alice.delete(`/api/services/${first.id}/`)).statusCode).toBe(204);
    rows = await assignmentsOn(d.ip);
    expect(rows.map((a) => [a.slug, a.service_id])).toEqual([
      [`manual-${n}`, null],
      ['tcp-443', second.id],
      ['tcp-8443', second.id],
    ]);
    // Turning the second off removes only what it owns; the manual check stays.
    await alice.patch(`/api/services/${second.id}/`, { monitored: false });
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual([`manual-${n}`]);
  });

  it("uses the service's own ip_address before the primary IP, and follows a VM's primary IP", async () => {
    const d = await deviceWithAddress();
    const other = await created(alice, '/api/ip-addresses/', { address: `10.${n}.0.2/24`, assigned_interface: d.iface });
    await alice.patch(`/api/devices/${d.device}/`, { primary_ip4: d.ip });
    const svc = await created(alice, '/api/services/', { device: d.device, name: 'dns', protocol_ports: { udp: [53] }, ip_address: other.id, monitored: true });
    expect((await assignmentsOn(other.id)).map((a) => a.service_id)).toEqual([svc.id]);
    expect(await assignmentsOn(d.ip)).toEqual([]);
    await alice.patch(`/api/services/${svc.id}/`, { ip_address: null });
    expect(await assignmentsOn(other.id)).toEqual([]);
    expect((await assignmentsOn(d.ip)).map((a) => a.slug)).toEqual(['udp-53']);

    const vm = await created(alice, '/api/virtual-machines/', { name: `vm-${n}` });
    const vmi = await created(alice, '/api/vm-interfaces/', { virtual_machine: vm.id, name: 'eth0' });
    const vip = await created(alice, '/api/ip-addresses/', { address: `10.${n}.9.1/24`, assigned_vm_interface: vmi.id });
    const vsvc = await created(alice, '/api/services/', { virtual_machine: vm.id, name: 'ssh', ports: [22], protocol: 'tcp', monitored: true });
    // Written with the legacy pair only: reads back through the same port map.
    expect(vsvc).toMatchObject({ protocol_ports: { tcp: [22] }, check_count: 0 });
    await alice.patch(`/api/virtual-machines/${vm.id}/`, { primary_ip4: vip.id });
    expect((await assignmentsOn(vip.id)).map((a) => [a.slug, a.service_id])).toEqual([['tcp-22', vsvc.id]]);
  });

  it('device creation materialises the type\'s service templates (monitor → monitored), idempotent by name', async () => {
    const b = await inventoryBasics(alice, ['eth0']);
    await created(alice, '/api/device-type-services/', { device_type: b.deviceType, name: 'ssh', protocol_ports: { tcp: [22] }, monitor: true });
    await created(alice, '/api/device-type-services/', { device_type: b.deviceType, name: 'snmp', protocol: 'udp', ports: [161], monitor: false });
    const dev = await createDevice(alice, b, `typed-${++n}`);
    const list = (await alice.get(`/api/services/?device=${dev.id}&ordering=name`)).json().results as Array<Record<string, unknown>>;
    expect(list.map((s) => [s.name, s.monitored, s.protocol, s.ports, s.protocol_ports, s.check_count])).toEqual([
      ['snmp', false, 'udp', [161], { udp: [161] }, 0],
      ['ssh', true, 'tcp', [22], { tcp: [22] }, 0],
    ]);
    // Once the device has a primary IP the materialised monitored service gets its check.
    const iface = (await alice.get(`/api/interfaces/?device=${dev.id}`)).json().results[0].id as string;
    const ip = await created(alice, '/api/ip-addresses/', { address: `10.200.${n}.1/24`, assigned_interface: iface });
    await alice.patch(`/api/devices/${dev.id}/`, { primary_ip4: ip.id });
    expect((await assignmentsOn(ip.id)).map((a) => a.slug)).toEqual(['tcp-22']);
  });

  it('reconciles many services with a number of queries that does not grow with them', async () => {
    // Templates exist beforehand so both runs do the same kind of work (creating templates costs two statements).
    for (const [kind, port] of [['tcp', 22], ['tcp', 80], ['udp', 161]] as const) {
      if ((await alice.get(`/api/check-templates/?slug=${kind}-${port}`)).json().count === 0) await created(alice, '/api/check-templates/', { name: `${kind} ${port}`, slug: `${kind}-${port}`, kind, port });
    }
    const counts: number[] = [];
    for (const size of [3, 20]) {
      const ids: string[] = [];
      for (let i = 0; i < size; i++) {
        const d = await deviceWithAddress();
        await alice.patch(`/api/devices/${d.device}/`, { primary_ip4: d.ip });
        ids.push((await created(alice, '/api/services/', { device: d.device, name: 'svc', protocol_ports: { tcp: [22, 80], udp: [161] } })).id);
      }
      await sql`UPDATE services SET monitored = true WHERE id = ANY(${ids}::uuid[])`.execute(h.database.db);
      const before = h.database.queryCount();
      await h.database.db.transaction().execute((tx) => reconcileServiceChecks(tx, ids));
      counts.push(h.database.queryCount() - before);
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM check_assignments WHERE service_id = ANY(${ids}::uuid[])`.execute(h.database.db);
      expect(rows[0]!.n).toBe(size * 3);
    }
    expect(counts[1]).toBe(counts[0]);
  });
});

describe('services: bad input changes nothing', () => {
  it('refuses bad ports, protocols, parents and addresses with 400 naming the field', async () => {
    const d = await deviceWithAddress();
    const foreignDevice = await deviceWithAddress();
    const vm = await created(alice, '/api/virtual-machines/', { name: `bad-vm-${n}` });
    const bobBasics = await inventoryBasics(h.as('bob'), ['eth0']);
    const bobDevice = await createDevice(h.as('bob'), bobBasics, 'bob-dev');
    const bobIface = (await h.as('bob').get(`/api/interfaces/?device=${bobDevice.id}`)).json().results[0].id as string;
    const bobIp = await created(h.as('bob'), '/api/ip-addresses/', { address: '10.99.0.1/24', assigned_interface: bobIface });
    const models = ['monitoring.service', 'monitoring.checkassignment', 'monitoring.checktemplate'].map(requireModel);
    const snapshot = async () => (await Promise.all(models.map((m) => tableState(h, m)))).join('|');
    const before = await snapshot();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ device: d.device, name: 'a', protocol_ports: { tcp: [0] } }, 'protocol_ports'],
      [{ device: d.device, name: 'a', protocol_ports: { tcp: [65536] } }, 'protocol_ports'],
      [{ device: d.device, name: 'a', protocol_ports: { tcp: ['http'] } }, 'protocol_ports'],
      [{ device: d.device, name: 'a', protocol_ports: { icmp: [1] } }, 'protocol_ports'],
      [{ device: d.device, name: 'a', protocol_ports: { tcp: [22, 22] } }, 'protocol_ports'],
      [{ device: d.device, name: 'a', ports: [0] }, 'ports'],
      [{ device: d.device, name: 'a', ports: [65536] }, 'ports'],
      [{ device: d.device, name: 'a', ports: ['http'] }, 'ports'],
      [{ device: d.device, name: 'a', protocol: 'icmp', ports: [1] }, 'protocol'],
      [{ device: d.device, name: 'a', ip_address: foreignDevice.ip }, 'ip_address'],
      [{ device: d.device, name: 'a', ip_address: bobIp.id }, 'ip_address'],
      [{ device: d.device, virtual_machine: vm.id, name: 'a' }, 'virtual_machine'],
      [{ name: 'a', protocol_ports: { tcp: [22] } }, 'device'],
      [{ device: bobDevice.id, name: 'a' }, 'device'],
    ];
    for (const [body, field] of cases) {
      const res = await alice.post('/api/services/', body);
      expect(res.statusCode, `${JSON.stringify(body)} → ${res.body}`).toBe(400);
      expect(Object.keys(res.json()), `${JSON.stringify(body)} → ${res.body}`).toContain(field);
    }
    const svc = await created(alice, '/api/services/', { device: d.device, name: 'ok', protocol_ports: { tcp: [22] } });
    const mid = await snapshot();
    for (const [body, field] of [
      [{ protocol_ports: { udp: [70000] } }, 'protocol_ports'],
      [{ device: null }, 'device'],
      [{ virtual_machine: vm.id }, 'virtual_machine'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await alice.patch(`/api/services/${svc.id}/`, body);
      expect(res.statusCode, res.body).toBe(400);
      expect(Object.keys(res.json())).toContain(field);
    }
    expect(await snapshot()).toBe(mid);
    expect(before).not.toBe(mid);
    // Duplicate (template, IP) for a manual assignment.
    const tpl = await created(alice, '/api/check-templates/', { name: 'x', slug: `dup-${n}`, kind: 'tcp', port: 7 });
    await created(alice, '/api/check-assignments/', { template: tpl.id, ip_address: d.ip });
    const dup = await alice.post('/api/check-assignments/', { template: tpl.id, ip_address: d.ip });
    expect(dup.statusCode).toBe(400);
    expect(Object.keys(dup.json())).toContain('ip_address');
  });

  it('keeps tenants apart: another tenant\'s service, its checks and the monitor action read as missing', async () => {
    const d = await deviceWithAddress();
    await alice.patch(`/api/devices/${d.device}/`, { primary_ip4: d.ip });
    const svc = await created(alice, '/api/services/', { device: d.device, name: 'iso', protocol_ports: { tcp: [22] }, monitored: true });
    const bob = h.as('bob');
    expect((await bob.get(`/api/services/${svc.id}/`)).statusCode).toBe(404);
    expect((await bob.post(`/api/services/${svc.id}/monitor/`)).statusCode).toBe(404);
    const bobAssignments = (await bob.get('/api/check-assignments/')).json().results as Array<{ service: unknown }>;
    expect(bobAssignments.every((a) => JSON.stringify(a.service ?? '').indexOf(svc.id) < 0)).toBe(true);
    expect((await bob.get('/api/check-templates/')).json().results.some((t: { slug: string }) => t.slug === 'tcp-22')).toBe(false);
    expect((await h.as('viewer').post(`/api/services/${svc.id}/monitor/`)).statusCode).toBe(403);
  });
});
