import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Obj = Record<string, unknown> & { id: string };
type Who = 'alice' | 'bob';
const end = (object_type: string, object_id: string) => ({ object_type, object_id });

async function byName(who: Who, path: string, deviceId: string): Promise<Record<string, Obj>> {
  const res = (await h.as(who).get(`${path}?device=${deviceId}&limit=1000`)).json();
  return Object.fromEntries(res.results.map((r: Obj) => [r.name, r]));
}

/**
 * A site with a rack, a panel with feeds A and B (230 V 16 A, 80 %: 2944 W each), a PDU type (inlet + 8 outlets),
 * a server type (PSU1, PSU2 at 300 W allocated / 500 W maximum, a console port) and a console server type (4 lines).
 */
async function powerSite(who: Who, prefix: string) {
  const c = h.as(who);
  const b = await inventoryBasics(c);
  const rack = await created(c, '/api/racks/', { site: b.site, name: `${prefix}-R1` });
  const panel = await created(c, '/api/power-panels/', { site: b.site, name: `${prefix}-PP1` });
  const feed = (name: string) => created(c, '/api/power-feeds/', { power_panel: panel.id, rack: rack.id, name, voltage: 230, amperage: 16 });
  const feedA = await feed('A');
  const feedB = await feed('B');
  // The server type is the basics' type; the PDU and console server types are of their own.
  const serverType = b.deviceType;
  for (const n of [1, 2]) await created(c, '/api/power-port-templates/', { device_type: serverType, name: `PSU${n}`, type: 'iec-60320-c14', maximum_draw: 500, allocated_draw: 300 });
  await created(c, '/api/console-port-templates/', { device_type: serverType, name: 'Console', type: 'rj-45' });
  const pduType = await created(c, '/api/device-types/', { manufacturer: b.manufacturer, model: `${prefix} PDU`, slug: `${prefix}-pdu` });
  const inlet = await created(c, '/api/power-port-templates/', { device_type: pduType.id, name: 'Inlet', type: 'iec-60309-p-n-e-6h' });
  for (let n = 1; n <= 8; n++) await created(c, '/api/power-outlet-templates/', { device_type: pduType.id, name: `Outlet ${n}`, type: 'iec-60320-c13', power_port: inlet.id, feed_leg: 'A' });
  const csType = await created(c, '/api/device-types/', { manufacturer: b.manufacturer, model: `${prefix} CS`, slug: `${prefix}-cs` });
  for (let n = 1; n <= 4; n++) await created(c, '/api/console-server-port-templates/', { device_type: csType.id, name: `Port ${n}`, type: 'rj-45' });
  const pduA = await createDevice(c, { ...b, deviceType: pduType.id } as Basics, `${prefix}-pdu-a`, { rack: rack.id });
  const pduB = await createDevice(c, { ...b, deviceType: pduType.id } as Basics, `${prefix}-pdu-b`, { rack: rack.id });
  const cs = await createDevice(c, { ...b, deviceType: csType.id } as Basics, `${prefix}-cs1`);
  const server = await createDevice(c, b, `${prefix}-srv1`, { rack: rack.id });
  return { b, rack, panel, feedA, feedB, pduA, pduB, cs, server, pduType, serverType };
}

/** Cables the PDUs to the feeds, the server's PSUs to outlet 1 of each PDU and its console to line 1. */
async function wire(who: Who, s: Awaited<ReturnType<typeof powerSite>>) {
  const c = h.as(who);
  const pduA = await byName(who, '/api/power-ports/', s.pduA.id);
  const pduB = await byName(who, '/api/power-ports/', s.pduB.id);
  await created(c, '/api/cables/', { a_terminations: [end('dcim.powerport', pduA.Inlet!.id)], b_terminations: [end('dcim.powerfeed', s.feedA.id)] });
  await created(c, '/api/cables/', { a_terminations: [end('dcim.powerport', pduB.Inlet!.id)], b_terminations: [end('dcim.powerfeed', s.feedB.id)] });
  const psus = await byName(who, '/api/power-ports/', s.server.id);
  const outA = await byName(who, '/api/power-outlets/', s.pduA.id);
  const outB = await byName(who, '/api/power-outlets/', s.pduB.id);
  await created(c, '/api/cables/', { a_terminations: [end('dcim.powerport', psus.PSU1!.id)], b_terminations: [end('dcim.poweroutlet', outA['Outlet 1']!.id)] });
  await created(c, '/api/cables/', { a_terminations: [end('dcim.powerport', psus.PSU2!.id)], b_terminations: [end('dcim.poweroutlet', outB['Outlet 1']!.id)] });
  const consolePort = (await byName(who, '/api/console-ports/', s.server.id)).Console!;
  const line = (await byName(who, '/api/console-server-ports/', s.cs.id))['Port 1']!;
  await created(c, '/api/cables/', { a_terminations: [end('dcim.consoleport', consolePort.id)], b_terminations: [end('dcim.consoleserverport', line.id)] });
  return { psus, outA, outB, consolePort, line, pduInletA: pduA.Inlet! };
}

describe('console and power components', () => {
  it('are made from the device type\'s templates, outlets fed by the new device\'s own inlet', async () => {
    const s = await powerSite('alice', 'mat');
    const outlets = (await h.as('alice').get(`/api/power-outlets/?device=${s.pduA.id}&limit=100`)).json();
    expect(outlets.count).toBe(8);
    const inlet = (await byName('alice', '/api/power-ports/', s.pduA.id)).Inlet!;
    expect(outlets.results.every((o: Obj) => (o.power_port as Obj).id === inlet.id && o.feed_leg === 'A')).toBe(true);
    expect(outlets.results[0]).toMatchObject({ display: 'mat-pdu-a › Outlet 1', type: 'iec-60320-c13', status: 'enabled' });
    const psus = await byName('alice', '/api/power-ports/', s.server.id);
    expect(psus.PSU2).toMatchObject({ maximum_draw: 500, allocated_draw: 300, type: 'iec-60320-c14' });
    expect(Object.keys(await byName('alice', '/api/console-ports/', s.server.id))).toEqual(['Console']);
    expect(Object.keys(await byName('alice', '/api/console-server-ports/', s.cs.id))).toEqual(['Port 1', 'Port 2', 'Port 3', 'Port 4']);
  });

  it('refuses bad input with a 400 naming the field, changing nothing', async () => {
    const c = h.as('alice');
    const s = await powerSite('alice', 'bad');
    const psu = (await byName('alice', '/api/power-ports/', s.server.id)).PSU1!;
    let res = await c.patch(`/api/power-ports/${psu.id}/`, { allocated_draw: 600 });
    expect(res.statusCode).toBe(400);
    expect(res.json().allocated_draw[0]).toMatch(/cannot exceed the maximum draw \(500 W\)/);
    expect((await c.get(`/api/power-ports/${psu.id}/`)).json().allocated_draw).toBe(300);
    res = await c.post('/api/power-port-templates/', { device_type: s.serverType, name: 'PSU9', maximum_draw: 100, allocated_draw: 200 });
    expect(Object.keys(res.json())).toEqual(['allocated_draw']);

    // An outlet fed by another device's power port.
    const outlet = (await byName('alice', '/api/power-outlets/', s.pduA.id))['Outlet 2']!;
    const otherInlet = (await byName('alice', '/api/power-ports/', s.pduB.id)).Inlet!;
    res = await c.patch(`/api/power-outlets/${outlet.id}/`, { power_port: otherInlet.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().power_port[0]).toMatch(/another device/);
    const otherTemplateType = await created(c, '/api/device-types/', { manufacturer: s.b.manufacturer, model: 'bad other', slug: 'bad-other' });
    const foreignTemplate = await created(c, '/api/power-port-templates/', { device_type: otherTemplateType.id, name: 'In' });
    res = await c.post('/api/power-outlet-templates/', { device_type: s.pduType.id, name: 'Outlet 99', power_port: foreignTemplate.id });
    expect(res.json().power_port[0]).toMatch(/another device type/);

    // A feed's rack in another site; AC with negative voltage; a duplicate name in a panel.
    const elsewhere = await inventoryBasics(c);
    const farRack = await created(c, '/api/racks/', { site: elsewhere.site, name: 'far' });
    res = await c.post('/api/power-feeds/', { power_panel: s.panel.id, name: 'C', rack: farRack.id });
    expect(res.statusCode).toBe(400);
    expect(res.json().rack[0]).toMatch(/must be in its panel's site/);
    res = await c.post('/api/power-feeds/', { power_panel: s.panel.id, name: 'C', voltage: -48 });
    expect(res.json().voltage[0]).toMatch(/negative for an AC supply/);
    expect((await c.post('/api/power-feeds/', { power_panel: s.panel.id, name: 'C', voltage: -48, supply: 'dc' })).statusCode).toBe(201);
    res = await c.post('/api/power-feeds/', { power_panel: s.panel.id, name: 'C' });
    expect(res.statusCode).toBe(400);
    // A panel's location in another site.
    const farLocation = await created(c, '/api/locations/', { site: elsewhere.site, name: 'far room', slug: 'far-room' });
    res = await c.patch(`/api/power-panels/${s.panel.id}/`, { location: farLocation.id });
    expect(res.json().location[0]).toMatch(/another site/);
    // A console speed that is no line speed.
    const cp = (await byName('alice', '/api/console-ports/', s.server.id)).Console!;
    res = await c.patch(`/api/console-ports/${cp.id}/`, { speed: 1234 });
    expect(res.json().speed[0]).toMatch(/9600/);
    expect((await c.patch(`/api/console-ports/${cp.id}/`, { speed: 115200 })).json().speed).toBe(115200);
    expect((await c.get('/api/power-feeds/?power_panel=' + s.panel.id)).json().count).toBe(3);
  });

  it('computes available power: volts × amps × max utilisation, √3 for three-phase', async () => {
    const c = h.as('alice');
    const s = await powerSite('alice', 'avail');
    expect(s.feedA).toMatchObject({ voltage: 230, amperage: 16, max_utilization: 80, available_power: 2944, status: 'active', type: 'primary', supply: 'ac', phase: 'single-phase' });
    const three = await created(c, '/api/power-feeds/', { power_panel: s.panel.id, name: '3P', voltage: 400, amperage: 32, phase: 'three-phase' });
    expect(three.available_power).toBe(Math.round(400 * 32 * 0.8 * 1.732));
    const defaults = await created(c, '/api/power-feeds/', { power_panel: s.panel.id, name: 'D' });
    expect(defaults).toMatchObject({ voltage: 120, amperage: 20, max_utilization: 80, available_power: 1920 });
    expect((await c.patch(`/api/power-feeds/${s.feedA.id}/`, { available_power: 1 })).statusCode).toBe(400);
  });

  it('cables only NetBox\'s compatible kinds, one cable per feed', async () => {
    const c = h.as('alice');
    const s = await powerSite('alice', 'cab');
    const w = await wire('alice', s);
    let res = await c.post('/api/cables/', { a_terminations: [end('dcim.consoleport', w.consolePort.id)], b_terminations: [end('dcim.poweroutlet', w.outA['Outlet 2']!.id)] });
    expect(res.statusCode).toBe(400);
    expect(res.json().b_terminations[0]).toBe('A console port cannot be cabled to a power outlet.');
    const pduB2 = await createDevice(c, { ...s.b, deviceType: s.pduType.id } as Basics, 'cab-pdu-c');
    const inlet = (await byName('alice', '/api/power-ports/', pduB2.id)).Inlet!;
    res = await c.post('/api/cables/', { a_terminations: [end('dcim.powerport', inlet.id)], b_terminations: [end('dcim.powerfeed', s.feedA.id)] });
    expect(res.statusCode).toBe(400);
    expect(res.json().b_terminations[0]).toBe('cab-PP1 › A is already connected by another cable.');
    // A feed's link peer is the PDU's inlet; marking a cabled port connected is refused.
    const feed = (await c.get(`/api/power-feeds/${s.feedA.id}/`)).json();
    expect(feed.link_peer).toMatchObject({ object_type: 'dcim.powerport', display: 'cab-pdu-a › Inlet' });
    res = await c.patch(`/api/power-ports/${w.psus.PSU1!.id}/`, { mark_connected: true });
    expect(res.json().mark_connected[0]).toMatch(/has a cable/);
    // …and cabling a port marked connected (NetBox's rule, both ways round).
    const spare = w.outA['Outlet 5']!;
    expect((await c.patch(`/api/power-outlets/${spare.id}/`, { mark_connected: true })).statusCode).toBe(200);
    const srv2 = await createDevice(c, s.b, 'cab-srv2');
    const psu = (await byName('alice', '/api/power-ports/', srv2.id)).PSU1!;
    res = await c.post('/api/cables/', { a_terminations: [end('dcim.powerport', psu.id)], b_terminations: [end('dcim.poweroutlet', spare.id)] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ b_terminations: ['cab-pdu-a › Outlet 5 is marked connected: clear the mark before cabling it.'] });
    // A panel with feeds cannot be deleted; deleting a feed takes its cable.
    expect((await c.delete(`/api/power-panels/${s.panel.id}/`)).statusCode).toBe(409);
    expect((await c.delete(`/api/power-feeds/${s.feedB.id}/`)).statusCode).toBe(204);
    expect((await c.get(`/api/power-ports/${(await byName('alice', '/api/power-ports/', s.pduB.id)).Inlet!.id}/`)).json().link_peer).toBeNull();
  });

  it('traces a server\'s power supply through its PDU to the feed and panel, and its console to the line', async () => {
    const c = h.as('alice');
    const s = await powerSite('alice', 'trc');
    const w = await wire('alice', s);
    const trace = (await c.get(`/api/power-ports/${w.psus.PSU1!.id}/trace/`)).json();
    expect(trace.ended).toBe('endpoint');
    expect(trace.segments.map((g: { near_end: Obj; far_end: Obj }) => [g.near_end.display, g.far_end.display])).toEqual([
      ['trc-srv1 › PSU1', 'trc-pdu-a › Outlet 1'],
      ['trc-pdu-a › Inlet', 'trc-PP1 › A'],
    ]);
    expect(trace.destination).toMatchObject({ object_type: 'dcim.powerfeed', parent: { object_type: 'dcim.powerpanel', display: 'trc-PP1' } });
    const psu2 = (await c.get(`/api/power-ports/${w.psus.PSU2!.id}/`)).json();
    expect(psu2.connected_endpoint).toMatchObject({ display: 'trc-PP1 › B', object_type: 'dcim.powerfeed' });
    expect(psu2.link_peer).toMatchObject({ display: 'trc-pdu-b › Outlet 1' });
    const consoles = (await c.get(`/api/console-ports/?device=${s.server.id}`)).json();
    expect(consoles.results[0].connected_endpoint).toMatchObject({ display: 'trc-cs1 › Port 1', object_type: 'dcim.consoleserverport' });
    const line = (await c.get(`/api/console-server-ports/${w.line.id}/trace/`)).json();
    expect(line.destination).toMatchObject({ display: 'trc-srv1 › Console' });
  });

  it('sums the draw per feed through the PDUs: feed, panel and rack utilisation', async () => {
    const c = h.as('alice');
    const s = await powerSite('alice', 'utl');
    await wire('alice', s);
    // A second server on PDU A, drawing its maximum (no allocation).
    const srv2 = await createDevice(c, s.b, 'utl-srv2', { rack: s.rack.id });
    const psus = await byName('alice', '/api/power-ports/', srv2.id);
    await c.patch(`/api/power-ports/${psus.PSU1!.id}/`, { allocated_draw: null });
    const outA = await byName('alice', '/api/power-outlets/', s.pduA.id);
    await created(c, '/api/cables/', { a_terminations: [end('dcim.powerport', psus.PSU1!.id)], b_terminations: [end('dcim.poweroutlet', outA['Outlet 2']!.id)] });
    const feedA = (await c.get(`/api/power-feeds/${s.feedA.id}/`)).json();
    expect(feedA.power_utilization).toEqual({ allocated_w: 800, available_w: 2944, percent: 27.2 });
    const feeds = (await c.get(`/api/power-feeds/?power_panel=${s.panel.id}`)).json();
    expect(feeds.results.map((f: Obj) => (f.power_utilization as Obj).allocated_w)).toEqual([800, 300]);
    const panel = (await c.get(`/api/power-panels/${s.panel.id}/`)).json();
    expect(panel.power_utilization).toEqual({ allocated_w: 1100, available_w: 5888, percent: 18.7 });
    const rack = (await c.get(`/api/racks/${s.rack.id}/`)).json();
    expect(rack.power_utilization).toEqual({ allocated_w: 1100, available_w: 5888, percent: 18.7 });
    // A three-phase feed: the draw per leg of the PDU's outlets, each leg a third of the feed.
    await c.patch(`/api/power-feeds/${s.feedA.id}/`, { phase: 'three-phase', voltage: 400 });
    await c.patch(`/api/power-outlets/${outA['Outlet 2']!.id}/`, { feed_leg: 'B' });
    const three = (await c.get(`/api/power-feeds/${s.feedA.id}/`)).json().power_utilization;
    expect(three.available_w).toBe(Math.round(400 * 16 * 0.8 * 1.732));
    expect(three.legs).toEqual([
      { leg: 'A', allocated_w: 300, percent: Math.round((300 * 1000) / (three.available_w / 3)) / 10 },
      { leg: 'B', allocated_w: 500, percent: Math.round((500 * 1000) / (three.available_w / 3)) / 10 },
    ]);
    expect((await c.get(`/api/power-feeds/${s.feedB.id}/`)).json().power_utilization.legs).toBeUndefined();
    const bare = await created(c, '/api/racks/', { site: s.b.site, name: 'utl-empty' });
    expect(bare.power_utilization ?? null).toBeNull();
  });

  it('keeps another tenant\'s power path to itself', async () => {
    const s = await powerSite('alice', 'iso');
    const w = await wire('alice', s);
    expect((await h.as('bob').get(`/api/power-ports/${w.psus.PSU1!.id}/trace/`)).statusCode).toBe(404);
    expect((await h.as('bob').get(`/api/power-feeds/${s.feedA.id}/`)).statusCode).toBe(404);
    // Bob's port cannot be cabled to Alice's feed: the feed reads as missing.
    const bb = await inventoryBasics(h.as('bob'));
    await created(h.as('bob'), '/api/power-port-templates/', { device_type: bb.deviceType, name: 'PSU1' });
    const bobPsu = (await byName('bob', '/api/power-ports/', (await createDevice(h.as('bob'), bb, 'bob-srv')).id)).PSU1!;
    const res = await h.as('bob').post('/api/cables/', { a_terminations: [end('dcim.powerport', bobPsu.id)], b_terminations: [end('dcim.powerfeed', s.feedB.id)] });
    expect(res.statusCode).toBe(400);
    expect((await h.as('bob').get(`/api/power-ports/${bobPsu.id}/trace/`)).json().ended).toBe('no_cable');
  });
});
