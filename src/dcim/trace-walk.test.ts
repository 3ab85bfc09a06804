// The cable walk is one recursive SQL statement (trace.ts); this checks it against a plain walk over the same
// ports held in memory, on random patchings: rear ports of 1-3 positions with front ports on most of them, cables
// with 0-2 ends on a side (several ends on one side, ends left open, loops), every port as a start.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { createDevice, inventoryBasics } from '../../test/helpers/inventory.ts';
import { MAX_SEGMENTS, walkPaths } from './trace.ts';

let h: Harness;
let devices: string[];
beforeAll(async () => {
  h = await startHarness();
  const b = await inventoryBasics(h.as('alice'), ['eth1', 'eth2', 'eth3', 'eth4']);
  devices = [];
  for (let i = 1; i <= 5; i++) devices.push((await createDevice(h.as('alice'), b, `walk-${i}`)).id);
});
afterAll(async () => {
  await h?.close();
});

interface End {
  type: string;
  id: string;
}
interface Port extends End {
  /** Position among every port in the walk's order of far ends (natural name, then id), read from the database. */
  rank: number;
  rear?: string;
  position?: number;
  positions?: number;
}
interface Net {
  ports: Map<string, Port>;
  ends: Map<string, { cable: string; end: string }>;
  byCable: Map<string, Array<End & { end: string }>>;
  fronts: Map<string, Map<number, string>>;
}

const keyOf = (e: End) => `${e.type}:${e.id}`;

/** The walk as the previous, step-by-step code did it (the semantics trace.ts documents on walkCte). */
function referenceWalk(net: Net, start: End): { segments: Array<{ near: End; cable: string | null; far: End | null }>; ended: string } {
  const segments: Array<{ near: End; cable: string | null; far: End | null }> = [];
  const seen = new Set([keyOf(start)]);
  const stack: number[] = [];
  let near = start;
  for (let step = 0; step < MAX_SEGMENTS; step++) {
    const mine = net.ends.get(keyOf(near));
    if (!mine) {
      segments.push({ near, cable: null, far: null });
      return { segments, ended: 'no_cable' };
    }
    const others = net.byCable.get(mine.cable)!.filter((o) => o.end !== mine.end).map((o) => net.ports.get(keyOf(o))!);
    others.sort((x, y) => Number(x.type !== 'dcim.interface') - Number(y.type !== 'dcim.interface') || x.rank - y.rank);
    const far = others[0];
    segments.push({ near, cable: mine.cable, far: far ? { type: far.type, id: far.id } : null });
    if (!far) return { segments, ended: 'open_port' };
    if (far.type === 'dcim.interface') return { segments, ended: 'interface' };
    if (seen.has(keyOf(far))) return { segments, ended: 'loop' };
    seen.add(keyOf(far));
    let next: End;
    if (far.type === 'dcim.frontport') {
      const rear = net.ports.get(`dcim.rearport:${far.rear}`)!;
      if (rear.positions! > 1) stack.push(far.position!);
      next = { type: 'dcim.rearport', id: far.rear! };
    } else {
      const fronts = net.fronts.get(far.id) ?? new Map<number, string>();
      const position = fronts.size && far.positions === 1 ? 1 : stack.pop();
      const front = position === undefined ? undefined : fronts.get(position);
      if (!front) return { segments, ended: position === undefined ? 'ambiguous' : 'open_port' };
      next = { type: 'dcim.frontport', id: front };
    }
    if (seen.has(keyOf(next))) return { segments, ended: 'loop' };
    seen.add(keyOf(next));
    near = next;
  }
  return { segments, ended: 'too_long' };
}

/** A small seeded generator, so a failing round can be run again. */
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff;
  };
}

/** Replaces the tenant's panels and cables with a random patching; returns every port of it. */
async function patchAtRandom(rand: () => number, round: number): Promise<Net> {
  const db = h.database.db;
  const tenant = h.tenants.a;
  await sql`DELETE FROM cables WHERE tenant_id = ${tenant}`.execute(db);
  await sql`DELETE FROM rear_ports WHERE tenant_id = ${tenant}`.execute(db);
  const rears: Array<{ id: string; device: string; name: string; positions: number }> = [];
  const fronts: Array<{ id: string; device: string; name: string; rear: string; position: number }> = [];
  for (const device of devices) {
    for (let r = 0; r < 1 + Math.floor(rand() * 3); r++) {
      // Names starting before or after the interfaces' (eth…), so an interface is not first on a cable by its name alone.
      const rear = { id: randomUUID(), device, name: `${rand() < 0.5 ? 'a' : 'z'}r${round}-${r}`, positions: 1 + Math.floor(rand() * 4) };
      rears.push(rear);
      for (let p = 1; p <= rear.positions; p++) if (rand() < 0.8) fronts.push({ id: randomUUID(), device, name: `${rand() < 0.5 ? 'a' : 'z'}f${round}-${r}-${p}`, rear: rear.id, position: p });
    }
  }
  await sql`INSERT INTO rear_ports (id, numid, tenant_id, device_id, name, type, positions)
    SELECT r.id, 900000 + r.n, ${tenant}, r.device, r.name, '8p8c', r.positions
    FROM unnest(${rears.map((r) => r.id)}::uuid[], ${rears.map((r) => r.device)}::uuid[], ${rears.map((r) => r.name)}::text[], ${rears.map((r) => r.positions)}::int[])
      WITH ORDINALITY AS r(id, device, name, positions, n)`.execute(db);
  await sql`INSERT INTO front_ports (id, numid, tenant_id, device_id, name, type, rear_port_id, rear_port_position)
    SELECT f.id, 900000 + f.n, ${tenant}, f.device, f.name, '8p8c', f.rear, f.position
    FROM unnest(${fronts.map((f) => f.id)}::uuid[], ${fronts.map((f) => f.device)}::uuid[], ${fronts.map((f) => f.name)}::text[],
      ${fronts.map((f) => f.rear)}::uuid[], ${fronts.map((f) => f.position)}::int[]) WITH ORDINALITY AS f(id, device, name, rear, position, n)`.execute(db);

  const { rows } = await sql<{ type: string; id: string; rank: number }>`SELECT p.type, p.id, (row_number() OVER (ORDER BY p.name_natural, p.id))::int AS rank FROM (
      SELECT 'dcim.interface'::text AS type, id, name_natural FROM interfaces WHERE device_id = ANY(${devices}::uuid[])
      UNION ALL SELECT 'dcim.frontport', id, name_natural FROM front_ports WHERE tenant_id = ${tenant}
      UNION ALL SELECT 'dcim.rearport', id, name_natural FROM rear_ports WHERE tenant_id = ${tenant}) p`.execute(db);
  const net: Net = { ports: new Map(), ends: new Map(), byCable: new Map(), fronts: new Map() };
  for (const r of rows) net.ports.set(keyOf(r), { type: r.type, id: r.id, rank: r.rank });
  for (const r of rears) Object.assign(net.ports.get(`dcim.rearport:${r.id}`)!, { positions: r.positions });
  for (const f of fronts) {
    Object.assign(net.ports.get(`dcim.frontport:${f.id}`)!, { rear: f.rear, position: f.position });
    net.fronts.set(f.rear, (net.fronts.get(f.rear) ?? new Map<number, string>()).set(f.position, f.id));
  }

  const free = [...net.ports.values()].sort(() => rand() - 0.5);
  const cables: string[] = [];
  const ends: Array<End & { cable: string; end: string }> = [];
  for (let c = Math.floor(free.length * (0.3 + (round % 3) * 0.1)); c > 0 && free.length >= 2; c--) {
    const cable = randomUUID();
    cables.push(cable);
    const a = rand() < 0.85 ? 1 : 2;
    const b = rand() < 0.1 ? 0 : rand() < 0.85 ? 1 : 2;
    for (const [end, n] of [['A', a], ['B', b]] as const) {
      for (let i = 0; i < n && free.length; i++) {
        const p = free.pop()!;
        ends.push({ type: p.type, id: p.id, cable, end });
        net.ends.set(keyOf(p), { cable, end });
        net.byCable.set(cable, [...(net.byCable.get(cable) ?? []), { type: p.type, id: p.id, end }]);
      }
    }
  }
  await sql`INSERT INTO cables (id, numid, tenant_id) SELECT c.id, 900000 + c.n, ${tenant} FROM unnest(${cables}::uuid[]) WITH ORDINALITY AS c(id, n)`.execute(db);
  await sql`INSERT INTO cable_terminations (cable_id, cable_end, termination_type, termination_id)
    SELECT * FROM unnest(${ends.map((e) => e.cable)}::uuid[], ${ends.map((e) => e.end)}::text[], ${ends.map((e) => e.type)}::text[], ${ends.map((e) => e.id)}::uuid[])`.execute(db);
  return net;
}

describe('the recursive cable walk', () => {
  it('walks random patchings as the step-by-step walk does, from every port', async () => {
    const endings = new Map<string, number>();
    for (let round = 0; round < 12; round++) {
      const net = await patchAtRandom(random(round * 7919 + 1), round);
      const starts = [...net.ports.values()].map((p) => ({ type: p.type, id: p.id }));
      const walks = await walkPaths(h.database.db, h.tenants.a, starts);
      starts.forEach((start, i) => {
        const expected = referenceWalk(net, start);
        const got = walks[i]!;
        expect({ segments: got.segments.map((s) => ({ near: s.near, cable: s.cable, far: s.far })), ended: got.ended }, `round ${round} from ${keyOf(start)}`).toEqual(expected);
        endings.set(expected.ended, (endings.get(expected.ended) ?? 0) + 1);
      });
    }
    // Every way a walk can end but too_long (ports.test.ts chains 33 panels for that) came up.
    expect([...endings.keys()].sort()).toEqual(['ambiguous', 'interface', 'loop', 'no_cable', 'open_port']);
  });
});
