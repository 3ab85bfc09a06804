import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, created, inventoryBasics, type Basics } from '../../test/helpers/inventory.ts';
import { MAX_SEGMENTS } from './trace.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

type Obj = Record<string, unknown> & { id: string };

async function byName(who: 'alice' | 'bob', path: string, deviceId: string): Promise<Record<string, Obj>> {
  const res = (await h.as(who).get(`${path}?device=${deviceId}&limit=1000`)).json();
  return Object.fromEntries(res.results.map((r: Obj) => [r.name, r]));
}

/** A patch panel type: one rear port with `positions` strands and a front port on each. */
async function panelType(who: 'alice' | 'bob', positions: number): Promise<Basics> {
  const client = h.as(who);
  const b = await inventoryBasics(client);
  const rear = await created(client, '/api/rear-port-templates/', { device_type: b.deviceType, name: 'R1', type: 'mpo', positions });
  for (let p = 1; p <= positions; p++) {
    await created(client, '/api/front-port-templates/', { device_type: b.deviceType, name: `F${p}`, type: 'lc', rear_port: rear.id, rear_port_position: p });
  }
  return b;
}

const end = (object_type: string, object_id: string) => ({ object_type, object_id });

describe('front and rear ports', () => {
  it('are made from the device type\'s templates, in natural order, shown with their device', async () => {
    const alice = h.as('alice');
    const b = await panelType('alice', 12);
    const panel = await createDevice(alice, b, 'pp-1');
    const fronts = (await alice.get(`/api/front-ports/?device=${panel.id}&limit=100`)).json();
    expect(fronts.count).toBe(12);
    expect(fronts.results.map((f: Obj) => f.name).slice(0, 3)).toEqual(['F1', 'F2', 'F3']);
    expect(fronts.results[9]).toMatchObject({ name: 'F10', display: 'pp-1 › F10', rear_port_position: 10, type: 'lc' });
    const rears = (await alice.get(`/api/rear-ports/?device=${panel.id}`)).json();
    expect(rears.results).toHaveLength(1);
    expect(rears.results[0]).toMatchObject({ name: 'R1', positions: 12, display: 'pp-1 › R1' });
    expect((fronts.results[0].rear_port as Obj).id).toBe(rears.results[0].id);
    expect((await alice.get(`/api/changes/?object_type=dcim.frontport&action=create`)).json().count).toBeGreaterThanOrEqual(12);
  });

  it('keeps a front port on a free position of a rear port of its own device', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice);
    const d1 = await createDevice(alice, b, 'pp-rules-1');
    const d2 = await createDevice(alice, b, 'pp-rules-2');
    const r1 = await created(alice, '/api/rear-ports/', { device: d1.id, name: 'R1', type: 'mpo', positions: 2 });
    const r2 = await created(alice, '/api/rear-ports/', { device: d2.id, name: 'R1', type: 'mpo' });
    expect(r2.positions).toBe(1);
    const f1 = await created(alice, '/api/front-ports/', { device: d1.id, name: 'F1', type: 'lc', rear_port: r1.id, rear_port_position: 1 });

    const other = await alice.post('/api/front-ports/', { device: d1.id, name: 'F9', type: 'lc', rear_port: r2.id });
    expect(other.statusCode).toBe(400);
    expect(other.json().rear_port[0]).toContain('pp-rules-2 › R1 is on another device');
    const beyond = await alice.post('/api/front-ports/', { device: d1.id, name: 'F9', type: 'lc', rear_port: r1.id, rear_port_position: 3 });
    expect(beyond.json()).toEqual({ rear_port_position: ['R1 has 2 positions; choose 1 to 2.'] });
    const taken = await alice.post('/api/front-ports/', { device: d1.id, name: 'F9', type: 'lc', rear_port: r1.id, rear_port_position: 1 });
    expect(taken.json()).toEqual({ rear_port_position: ['Position 1 of R1 is already mapped to front port F1.'] });
    const badType = await alice.post('/api/front-ports/', { device: d1.id, name: 'F9', type: 'rj45-ish', rear_port: r1.id, rear_port_position: 2 });
    expect(badType.json()).toHaveProperty('type');
    const noRear = await alice.post('/api/front-ports/', { device: d1.id, name: 'F9', type: 'lc' });
    expect(noRear.json()).toHaveProperty('rear_port');
    const tooMany = await alice.post('/api/rear-ports/', { device: d1.id, name: 'R9', type: 'mpo', positions: 1025 });
    expect(tooMany.json()).toHaveProperty('positions');
    expect((await alice.patch(`/api/rear-ports/${r1.id}/`, { positions: 0 })).json()).toHaveProperty('positions');
    expect((await alice.get(`/api/front-ports/?device=${d1.id}`)).json().count).toBe(1);
    expect((await alice.get(`/api/rear-ports/?device=${d1.id}`)).json().count).toBe(1);

    // Fewer positions than a front port uses, or moving a port to a position of another device's rear port: refused.
    await created(alice, '/api/front-ports/', { device: d1.id, name: 'F2', type: 'lc', rear_port: r1.id, rear_port_position: 2 });
    expect((await alice.patch(`/api/rear-ports/${r1.id}/`, { positions: 1 })).json()).toEqual({ positions: ['A front port maps to position 2: keep at least 2 positions.'] });
    expect((await alice.patch(`/api/front-ports/${f1.id}/`, { rear_port: r2.id })).json()).toHaveProperty('rear_port');
    expect((await alice.patch(`/api/front-ports/${f1.id}/`, { description: 'to row 3' })).statusCode).toBe(200);

    // Templates keep the same rule within a device type.
    const t = await created(alice, '/api/rear-port-templates/', { device_type: b.deviceType, name: 'RT', type: 'mpo', positions: 1 });
    const tBad = await alice.post('/api/front-port-templates/', { device_type: b.deviceType, name: 'FT', type: 'lc', rear_port: t.id, rear_port_position: 2 });
    expect(tBad.json()).toHaveProperty('rear_port_position');
  });
});

/**
 * leaf:eth1..2 → panel A front F1..2 ⇢ A:R1 ═ trunk ═ B:R1 ⇢ panel B front F1..2 → spine:eth1..2, with rear ports
 * of 4 positions: a trace must leave panel B by the position it entered panel A on.
 */
async function patchedFabric(who: 'alice' | 'bob', prefix: string) {
  const client = h.as(who);
  const panels = await panelType(who, 4);
  const panelA = await createDevice(client, panels, `${prefix}-pp-a`);
  const panelB = await createDevice(client, panels, `${prefix}-pp-b`);
  const nodes = await inventoryBasics(client, ['eth1', 'eth2', 'eth3']);
  const leaf = await createDevice(client, nodes, `${prefix}-leaf`);
  const spine = await createDevice(client, nodes, `${prefix}-spine`);
  const [la, lb, ls, ll] = await Promise.all([
    byName(who, '/api/front-ports/', panelA.id),
    byName(who, '/api/front-ports/', panelB.id),
    byName(who, '/api/interfaces/', spine.id),
    byName(who, '/api/interfaces/', leaf.id),
  ]);
  const rearA = (await byName(who, '/api/rear-ports/', panelA.id)).R1!;
  const rearB = (await byName(who, '/api/rear-ports/', panelB.id)).R1!;
  const trunk = await created(client, '/api/cables/', { a_terminations: [end('dcim.rearport', rearA.id)], b_terminations: [end('dcim.rearport', rearB.id)], label: `${prefix}-trunk` });
  for (const n of [1, 2]) {
    await created(client, '/api/cables/', { a_terminations: [end('dcim.interface', ll![`eth${n}`]!.id)], b_terminations: [end('dcim.frontport', la![`F${n}`]!.id)], label: `${prefix}-leaf-${n}` });
    // The legacy shape on one end: a bare id is an interface.
    await created(client, '/api/cables/', { a_terminations: [end('dcim.frontport', lb![`F${n}`]!.id)], b_terminations: [ls![`eth${n}`]!.id], label: `${prefix}-spine-${n}` });
  }
  return { leaf, spine, panelA, panelB, rearA, rearB, trunk, frontsA: la!, frontsB: lb!, leafIfs: ll!, spineIfs: ls! };
}

describe('cables with ports on their ends', () => {
  it('accept NetBox-shaped ends and the legacy id list, and answer NetBox\'s shape', async () => {
    const alice = h.as('alice');
    const f = await patchedFabric('alice', 'shape');
    const cable = (await alice.get(`/api/cables/?label=shape-leaf-1`)).json().results[0];
    expect(cable.a_terminations).toEqual([
      expect.objectContaining({ object_type: 'dcim.interface', object_id: f.leafIfs.eth1!.id, id: f.leafIfs.eth1!.id, display: 'shape-leaf › eth1', object: expect.objectContaining({ display: 'shape-leaf › eth1' }) }),
    ]);
    expect(cable.b_terminations[0]).toMatchObject({ object_type: 'dcim.frontport', object_id: f.frontsA.F1!.id, display: 'shape-pp-a › F1' });
    const spineSide = (await alice.get(`/api/cables/?label=shape-spine-2`)).json().results[0];
    expect(spineSide.b_terminations[0]).toMatchObject({ object_type: 'dcim.interface', display: 'shape-spine › eth2' });
    // Filters by an end's id, whatever its kind.
    expect((await alice.get(`/api/cables/?b_terminations=${f.frontsA.F2!.id}`)).json().results.map((c: Obj) => c.label)).toEqual(['shape-leaf-2']);
    expect((await alice.get(`/api/front-ports/?device=${f.panelA.id}&cabled=true`)).json().count).toBe(2);

    const wrongType = await alice.post('/api/cables/', { a_terminations: [end('dcim.nosuchport', f.leafIfs.eth3!.id)], b_terminations: [f.spineIfs.eth3!.id] });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().a_terminations[0]).toContain('not a valid object_type');
    const mismatched = await alice.post('/api/cables/', { a_terminations: [end('dcim.frontport', f.leafIfs.eth3!.id)], b_terminations: [f.spineIfs.eth3!.id] });
    expect(mismatched.json()).toEqual({ a_terminations: [`Related object ${f.leafIfs.eth3!.id} does not exist.`] });
    const mixed = await alice.post('/api/cables/', { a_terminations: [f.leafIfs.eth3!.id, end('dcim.frontport', f.frontsA.F3!.id)], b_terminations: [f.spineIfs.eth3!.id] });
    expect(mixed.json()).toHaveProperty('a_terminations');
    const garbage = await alice.post('/api/cables/', { a_terminations: [{ object_type: 'dcim.interface' }], b_terminations: [f.spineIfs.eth3!.id] });
    expect(garbage.json(), garbage.body).toHaveProperty('a_terminations');
    expect((await alice.get('/api/cables/?label__isw=shape')).json().count).toBe(5);

    // Swapping the two ends of a cable in one write is fine (the old rows go before the new ones).
    const swapped = await alice.patch(`/api/cables/${cable.id}/`, { a_terminations: [end('dcim.frontport', f.frontsA.F1!.id)], b_terminations: [f.leafIfs.eth1!.id] });
    expect(swapped.statusCode, swapped.body).toBe(200);
    expect(swapped.json().a_terminations[0]).toMatchObject({ object_type: 'dcim.frontport' });
  });

  it('never puts one port on two cables, also under concurrent requests', async () => {
    const alice = h.as('alice');
    const f = await patchedFabric('alice', 'twice');
    const again = await alice.post('/api/cables/', { a_terminations: [f.leafIfs.eth3!.id], b_terminations: [end('dcim.frontport', f.frontsA.F1!.id)] });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ b_terminations: ['twice-pp-a › F1 is already connected by another cable.'] });
    const rearTwice = await alice.post('/api/cables/', { a_terminations: [end('dcim.rearport', f.rearA.id)], b_terminations: [f.spineIfs.eth3!.id] });
    expect(rearTwice.json().a_terminations[0]).toContain('twice-pp-a › R1');

    // Two requests for the same free front port at once: one cable, the other refused naming the port.
    const answers = await Promise.all(
      ['eth3', 'eth3'].map((_n, i) =>
        alice.post('/api/cables/', { a_terminations: [end('dcim.frontport', f.frontsA.F3!.id)], b_terminations: [(i === 0 ? f.leafIfs : f.spineIfs).eth3!.id], label: `race-${i}` }),
      ),
    );
    expect(answers.map((a) => a.statusCode).sort()).toEqual([201, 400]);
    const refused = answers.find((a) => a.statusCode === 400)!.json();
    expect(refused.a_terminations[0]).toMatch(/twice-pp-a › F3 is already (connected by|on) another cable\./);
    expect((await alice.get('/api/cables/?label__isw=race-')).json().count).toBe(1);
  });

  // PostgreSQL only (the embedded database has one connection): another transaction holds the port, not yet
  // committed, so the cable's own check cannot see it; the join table's key is what refuses the second cable.
  it.skipIf(!process.env.TEST_DATABASE_URL)('refuses, by the database key, a port another transaction has just taken', async () => {
    const f = await patchedFabric('alice', 'lock');
    const port = f.frontsA.F4!.id;
    const db = h.database.db;
    let held!: () => void;
    let release!: () => void;
    const holding = new Promise<void>((r) => (held = r));
    const released = new Promise<void>((r) => (release = r));
    const cable = randomUUID();
    const holder = db.transaction().execute(async (tx) => {
      await sql`INSERT INTO cables (id, numid, tenant_id) SELECT ${cable}::uuid, 900000, tenant_id FROM front_ports WHERE id = ${port}`.execute(tx);
      await sql`INSERT INTO cable_terminations VALUES (${cable}, 'A', 'dcim.frontport', ${port})`.execute(tx);
      held();
      await released;
    });
    await holding;
    const request = h.as('alice').post('/api/cables/', { a_terminations: [end('dcim.frontport', port)], b_terminations: [f.leafIfs.eth3!.id] });
    // Released once the request's insert waits on the holder's row: its check has passed by then.
    for (let i = 0; ; i++) {
      const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`.execute(db);
      if (rows[0]!.n > 0) break;
      expect(i, 'the request never waited on the held port').toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 10));
    }
    release();
    await holder;
    const res = await request;
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json()).toEqual({ a_terminations: ['lock-pp-a › F4 is already on another cable.'] });
    expect((await h.as('alice').get(`/api/cables/?a_terminations=${port}`)).json().count).toBe(1);
    await sql`DELETE FROM cables WHERE id = ${cable}`.execute(db);
  });

  it('deletes the cables a deleted port leaves without an end', async () => {
    const alice = h.as('alice');
    const f = await patchedFabric('alice', 'gone');
    expect((await alice.delete(`/api/front-ports/${f.frontsB.F1!.id}/`)).statusCode).toBe(204);
    expect((await alice.get('/api/cables/?label=gone-spine-1')).json().count).toBe(0);
    // The rear port takes its front ports with it, and so the trunk and the cables on those front ports.
    expect((await alice.delete(`/api/rear-ports/${f.rearA.id}/`)).statusCode).toBe(204);
    expect((await alice.get('/api/cables/?label__isw=gone-')).json().results.map((c: Obj) => c.label)).toEqual(['gone-spine-2']);
    expect((await alice.get(`/api/changes/?object_type=dcim.cable&object_id=${f.trunk.id}&action=delete`)).json().count).toBe(1);
    expect((await alice.delete(`/api/devices/${f.panelB.id}/`)).statusCode).toBe(204);
    expect((await alice.get('/api/cables/?label__isw=gone-')).json().count).toBe(0);
    expect((await alice.get(`/api/interfaces/${f.spineIfs.eth2!.id}/`)).json().link_peer).toBeNull();
  });
});

describe('cable trace', () => {
  it('follows a path through two patch panels, position by position, both ways', async () => {
    const alice = h.as('alice');
    const f = await patchedFabric('alice', 'tr');
    const trace = (await alice.get(`/api/interfaces/${f.leafIfs.eth2!.id}/trace/`)).json();
    expect(trace.ended).toBe('interface');
    expect(trace.origin).toMatchObject({ display: 'tr-leaf › eth2', object_type: 'dcim.interface' });
    const hops = trace.segments.map((s: { near_end: Obj; cable: Obj; far_end: Obj }) => [s.near_end.display, s.cable.display, s.far_end.display]);
    expect(hops).toEqual([
      ['tr-leaf › eth2', 'tr-leaf-2', 'tr-pp-a › F2'],
      ['tr-pp-a › R1', 'tr-trunk', 'tr-pp-b › R1'],
      ['tr-pp-b › F2', 'tr-spine-2', 'tr-spine › eth2'],
    ]);
    expect(trace.destination).toMatchObject({ id: f.spineIfs.eth2!.id, object_type: 'dcim.interface', url: expect.stringContaining(`/api/interfaces/${f.spineIfs.eth2!.id}/`) });
    expect(trace.segments[0].far_end.device).toMatchObject({ display: 'tr-pp-a', id: f.panelA.id });

    const back = (await alice.get(`/api/interfaces/${f.spineIfs.eth1!.id}/trace/`)).json();
    expect(back.segments.map((s: { far_end: Obj }) => s.far_end.display)).toEqual(['tr-pp-b › F1', 'tr-pp-a › R1', 'tr-leaf › eth1']);
    expect(back.destination.display).toBe('tr-leaf › eth1');

    // From a front port too; from a rear port the position is unknown: the path stops after the trunk.
    const fromFront = (await alice.get(`/api/front-ports/${f.frontsA.F1!.id}/trace/`)).json();
    expect(fromFront.destination?.display).toBe('tr-leaf › eth1');
    const fromRear = (await alice.get(`/api/rear-ports/${f.rearA.id}/trace/`)).json();
    expect(fromRear).toMatchObject({ ended: 'ambiguous', destination: null });

    // link_peer stays the near end across the cable; connected_endpoint is the far interface.
    const leafIf = (await alice.get(`/api/interfaces/${f.leafIfs.eth2!.id}/`)).json();
    expect(leafIf.link_peer).toMatchObject({ object_type: 'dcim.frontport', device: 'tr-pp-a', name: 'F2', interface_id: f.frontsA.F2!.id });
    expect(leafIf.connected_endpoint).toMatchObject({ id: f.spineIfs.eth2!.id, display: 'tr-spine › eth2', object_type: 'dcim.interface' });
    const list = await byName('alice', '/api/interfaces/', f.leaf.id);
    expect(list.eth1!.connected_endpoint).toMatchObject({ display: 'tr-spine › eth1' });
    expect(list.eth3!.connected_endpoint).toBeNull();
    const free = (await alice.get(`/api/interfaces/${f.leafIfs.eth3!.id}/trace/`)).json();
    expect(free).toMatchObject({ ended: 'no_cable', destination: null, segments: [{ near_end: { display: 'tr-leaf › eth3' }, cable: null, far_end: null }] });
  });

  it('ends a trace on a patch loop instead of spinning', async () => {
    const alice = h.as('alice');
    const b = await inventoryBasics(alice, ['eth1']);
    const host = await createDevice(alice, b, 'loop-host');
    const panel = await createDevice(alice, b, 'loop-pp');
    const rear = await created(alice, '/api/rear-ports/', { device: panel.id, name: 'R1', type: 'lc', positions: 2 });
    const f1 = await created(alice, '/api/front-ports/', { device: panel.id, name: 'F1', type: 'lc', rear_port: rear.id, rear_port_position: 1 });
    const f2 = await created(alice, '/api/front-ports/', { device: panel.id, name: 'F2', type: 'lc', rear_port: rear.id, rear_port_position: 2 });
    const eth1 = (await byName('alice', '/api/interfaces/', host.id)).eth1!;
    await created(alice, '/api/cables/', { a_terminations: [eth1.id], b_terminations: [end('dcim.frontport', f1.id)] });
    // The panel's rear port patched back into its own F2: F2 leads to R1, whose cable leads to F2 again.
    await created(alice, '/api/cables/', { a_terminations: [end('dcim.rearport', rear.id)], b_terminations: [end('dcim.frontport', f2.id)] });
    const trace = (await alice.get(`/api/interfaces/${eth1.id}/trace/`)).json();
    expect(trace).toMatchObject({ ended: 'loop', destination: null });
    expect(trace.segments.map((s: { far_end: Obj }) => s.far_end.display)).toEqual(['loop-pp › F1', 'loop-pp › F2']);
    expect((await alice.get(`/api/interfaces/${eth1.id}/`)).json().connected_endpoint).toBeNull();
  });

  it('cuts a path after MAX_SEGMENTS cables', async () => {
    const alice = h.as('alice');
    const panels = await panelType('alice', 1);
    const host = await createDevice(alice, await inventoryBasics(alice, ['eth1']), 'long-host');
    // eth1 → P1:F1 ⇢ P1:R1 ═ P2:R1 ⇢ P2:F1 → P3:F1 ⇢ P3:R1 ═ …: one cable per panel, no port twice.
    const ports: Array<{ front: Obj; rear: Obj }> = [];
    for (let i = 1; i <= MAX_SEGMENTS + 1; i++) {
      const panel = await createDevice(alice, panels, `long-pp-${i}`);
      ports.push({ front: (await byName('alice', '/api/front-ports/', panel.id)).F1!, rear: (await byName('alice', '/api/rear-ports/', panel.id)).R1! });
    }
    const eth1 = (await byName('alice', '/api/interfaces/', host.id)).eth1!;
    await created(alice, '/api/cables/', { a_terminations: [eth1.id], b_terminations: [end('dcim.frontport', ports[0]!.front.id)] });
    for (let i = 0; i + 1 < ports.length; i++) {
      const kind = i % 2 === 0 ? 'rear' : 'front';
      await created(alice, '/api/cables/', { a_terminations: [end(`dcim.${kind}port`, ports[i]![kind].id)], b_terminations: [end(`dcim.${kind}port`, ports[i + 1]![kind].id)] });
    }
    const trace = (await alice.get(`/api/interfaces/${eth1.id}/trace/`)).json();
    expect(trace).toMatchObject({ ended: 'too_long', destination: null });
    expect(trace.segments).toHaveLength(MAX_SEGMENTS);
    expect(trace.segments[MAX_SEGMENTS - 1].far_end.display).toBe(`long-pp-${MAX_SEGMENTS}${MAX_SEGMENTS % 2 ? ' › F1' : ' › R1'}`);
    expect((await alice.get(`/api/interfaces/${eth1.id}/`)).json().connected_endpoint).toBeNull();
  });

  it('is another tenant\'s path: not found', async () => {
    const f = await patchedFabric('alice', 'iso');
    for (const path of [`/api/interfaces/${f.leafIfs.eth1!.id}/trace/`, `/api/front-ports/${f.frontsA.F1!.id}/trace/`, `/api/rear-ports/${f.rearA.id}/trace/`]) {
      expect((await h.as('bob').get(path)).statusCode).toBe(404);
    }
    expect((await h.as('bob').get(`/api/front-ports/?device=${f.panelA.id}`)).json().count).toBe(0);
    expect((await h.as('alice').get('/api/interfaces/not-an-id/trace/')).statusCode).toBe(400);
    // Bob's cable to Alice's front port: refused as an object that does not exist.
    const bb = await inventoryBasics(h.as('bob'), ['eth1']);
    const bobIf = (await byName('bob', '/api/interfaces/', (await createDevice(h.as('bob'), bb, 'bob-host')).id)).eth1!;
    const res = await h.as('bob').post('/api/cables/', { a_terminations: [bobIf.id], b_terminations: [end('dcim.frontport', f.frontsA.F3!.id)] });
    expect(res.json()).toEqual({ b_terminations: [`Related object ${f.frontsA.F3!.id} does not exist.`] });
  });
});
