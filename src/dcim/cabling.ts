// Cable ends: what may be cabled (the kinds registered in cable-ends.ts), the cables that go when a port goes, and
// a port's link peer (the object across its cable). The ends live in cable_terminations, one row per port, keyed
// by the port: that key is what keeps a port on one cable (see migration 0027).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ComputedField, HookArgs } from '../core/registry.ts';
import { getModel, requireModel } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { recordChanges, snapshot } from '../core/changelog.ts';
import { callerTenant, inTenant, tenantOf } from '../core/access.ts';
import { displayOf, DISPLAY_SEPARATOR, type Row } from '../core/crud/serialize.ts';
import type { GenericRef } from '../core/crud/field-values.ts';

import { cableEndKind, cableablePorts, cableEndKinds, compatibleEnds, registerCableEnd } from './cable-ends.ts';

export { TERMINATION_TYPES } from './cable-ends.ts';

registerCableEnd({
  type: 'dcim.interface',
  table: 'interfaces',
  parent: { model: 'dcim.device', table: 'devices', column: 'device_id', nameColumn: 'name' },
  endpoint: true,
  compatible: ['dcim.interface', 'circuits.circuittermination', 'dcim.frontport', 'dcim.rearport'],
});

/** A cable end as stored: the port's model and id. */
export interface Termination {
  type: string;
  id: string;
}


/**
 * Deletes the cables that would be left with an empty end once `gone` ports are deleted (a port or a whole device
 * going), with their change-log rows, and the gone ports' rows on the cables that stay. A cable to nowhere is not
 * a cable.
 */
export async function deleteCablesLosingAnEnd(tx: Kysely<DB>, ctx: RequestContext, gone: Termination[]): Promise<void> {
  if (gone.length === 0) return;
  const types = gone.map((g) => g.type);
  const ids = gone.map((g) => g.id);
  const goneSet = sql`(SELECT * FROM unnest(${types}::text[], ${ids}::uuid[]) AS g(type, id))`;
  const { rows } = await sql<Row>`DELETE FROM cables c WHERE c.id IN (
      SELECT t.cable_id FROM cable_terminations t WHERE (t.termination_type, t.termination_id) IN ${goneSet}
    ) AND (
      NOT EXISTS (SELECT 1 FROM cable_terminations a WHERE a.cable_id = c.id AND a.cable_end = 'A' AND (a.termination_type, a.termination_id) NOT IN ${goneSet})
      OR NOT EXISTS (SELECT 1 FROM cable_terminations b WHERE b.cable_id = c.id AND b.cable_end = 'B' AND (b.termination_type, b.termination_id) NOT IN ${goneSet})
    ) RETURNING *`.execute(tx);
  await sql`DELETE FROM cable_terminations t WHERE (t.termination_type, t.termination_id) IN ${goneSet}`.execute(tx);
  if (rows.length === 0) return;
  const model = requireModel('dcim.cable');
  await sql`DELETE FROM tagged_items WHERE object_type = ${model.name} AND object_id = ANY(${rows.map((r) => String(r.id))}::uuid[])`.execute(tx);
  await recordChanges(
    tx,
    ctx,
    rows.map((r) => ({ model, action: 'delete' as const, objectId: String(r.id), repr: displayOf(model, r), before: snapshot(model, r), after: null, tenantId: tenantOf(r) })),
  );
}

/** Cables of devices about to be deleted (their ports go by cascade): one lookup for any number of devices. */
export async function deleteCablesOfDevices(tx: Kysely<DB>, ctx: RequestContext, deviceIds: string[]): Promise<void> {
  const { rows } = await sql<{ type: string; id: string }>`SELECT p.object_type AS type, p.id FROM ${cableablePorts()} p
    WHERE p.device_id = ANY(${deviceIds}::uuid[])`.execute(tx);
  await deleteCablesLosingAnEnd(tx, ctx, rows);
}

/** Rear ports about to be deleted take their front ports with them (cascade): the cables of both. */
export async function deleteCablesOfRearPorts(tx: Kysely<DB>, ctx: RequestContext, rearPortIds: string[]): Promise<void> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM front_ports WHERE rear_port_id = ANY(${rearPortIds}::uuid[])`.execute(tx);
  await deleteCablesLosingAnEnd(tx, ctx, [...rearPortIds.map((id) => ({ type: 'dcim.rearport', id })), ...rows.map((r) => ({ type: 'dcim.frontport', id: r.id }))]);
}

/** "console port", from the registry's label of a cable end's model. */
function labelOf(type: string): string {
  return getModel(type)?.label ?? type;
}

const VIRTUAL_TYPES = new Set(['virtual', 'bridge', 'lag', 'loopback', 'tunnel']);
const END_KEYS = { a_terminations: 'A', b_terminations: 'B' } as const;

/**
 * A cable joins physical ports of the tenant: at least one per end, none on both ends, one kind of object per
 * end (as NetBox requires), none already on another cable. The last is checked here for a clear answer; the
 * join table's key is what guarantees it under concurrent writes. Ids of other tenants are skipped here and
 * reported by the generic reference check as missing.
 */
export async function checkCableTerminations({ tx, ctx, input, existing }: HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null }): Promise<void> {
  if (existing && !('a_terminations' in input) && !('b_terminations' in input)) return;
  const current = async (end: 'A' | 'B'): Promise<GenericRef[]> => {
    if (!existing) return [];
    const { rows } = await sql<GenericRef>`SELECT termination_type AS object_type, termination_id::text AS object_id FROM cable_terminations
      WHERE cable_id = ${existing.id} AND cable_end = ${end}`.execute(tx);
    return rows;
  };
  const ends: Record<keyof typeof END_KEYS, GenericRef[]> = {
    a_terminations: (input.a_terminations as GenericRef[] | undefined) ?? (await current('A')),
    b_terminations: (input.b_terminations as GenericRef[] | undefined) ?? (await current('B')),
  };
  const errors = new ErrorCollector();
  const key = (r: GenericRef) => `${r.object_type}:${r.object_id}`;
  const onA = new Set(ends.a_terminations.map(key));
  for (const [field, refs] of Object.entries(ends)) {
    if (refs.length === 0) errors.add(field, 'A cable needs at least one interface or port on each end.');
    if (new Set(refs.map((r) => r.object_type)).size > 1) errors.add(field, 'All the objects of one cable end must be of one kind (interfaces, front ports, console ports…).');
  }
  // NetBox's pairs: an interface to an interface, a circuit or a panel; a console port to a console server port; a
  // power port to an outlet or a feed…
  const kindA = ends.a_terminations[0]?.object_type;
  const kindB = ends.b_terminations[0]?.object_type;
  if (kindA && kindB && !compatibleEnds(kindA, kindB)) {
    errors.add('b_terminations', `A ${labelOf(kindA)} cannot be cabled to a ${labelOf(kindB)}.`);
  }
  const all = [...ends.a_terminations, ...ends.b_terminations];
  if (all.length) {
    const { rows } = await sql<{ object_type: string; id: string; name: string; type: string | null; parent: string; cabled: boolean }>`
      SELECT p.object_type, p.id, p.name, p.type, p.parent_name AS parent,
        EXISTS (SELECT 1 FROM cable_terminations t WHERE t.termination_type = p.object_type AND t.termination_id = p.id
          AND t.cable_id IS DISTINCT FROM ${existing?.id ?? null}::uuid) AS cabled
      FROM ${cableablePorts()} p
      WHERE (p.object_type, p.id) IN (SELECT * FROM unnest(${all.map((r) => r.object_type)}::text[], ${all.map((r) => r.object_id)}::uuid[]))
        AND ${callerTenant(ctx, 'p')}`.execute(tx);
    for (const r of rows) {
      const shown = `${r.parent}${DISPLAY_SEPARATOR}${r.name}`;
      const field = onA.has(`${r.object_type}:${r.id}`) ? 'a_terminations' : 'b_terminations';
      if (onA.has(`${r.object_type}:${r.id}`) && ends.b_terminations.some((b) => key(b) === `${r.object_type}:${r.id}`)) errors.add('b_terminations', `${shown} cannot be on both ends.`);
      if (r.cabled) errors.add(field, `${shown} is already connected by another cable.`);
      if (r.object_type === 'dcim.interface' && r.type && VIRTUAL_TYPES.has(r.type)) errors.add(field, `${shown} is a ${r.type} interface and cannot be cabled.`);
    }
    await checkMarkedConnected(tx, ctx, ends, errors);
    // Ends a kind says take no cable (one query per such kind named in the request, none otherwise).
    for (const kind of cableEndKinds()) {
      const ids = kind.uncableable ? all.filter((r) => r.object_type === kind.type).map((r) => r.object_id) : [];
      if (!kind.uncableable || ids.length === 0) continue;
      const { rows: refused } = await sql<{ id: string; name: string; parent: string }>`SELECT p.id, p.name, p.parent_name AS parent
        FROM ${cableablePorts()} p JOIN ${sql.table(kind.table)} x ON x.id = p.id
        WHERE p.object_type = ${kind.type} AND p.id = ANY(${ids}::uuid[]) AND ${callerTenant(ctx, 'p')} AND ${sql.raw(kind.uncableable.when)}`.execute(tx);
      for (const r of refused) {
        errors.add(onA.has(`${kind.type}:${r.id}`) ? 'a_terminations' : 'b_terminations', `${r.parent}${DISPLAY_SEPARATOR}${r.name} ${kind.uncableable.reason}`);
      }
    }
  }
  errors.throwIfAny();
}

/** NetBox: no cable to an object marked connected (the mark stands for a cable Cairn does not hold). One query per end. */
async function checkMarkedConnected(tx: Kysely<DB>, ctx: RequestContext, ends: Record<keyof typeof END_KEYS, GenericRef[]>, errors: ErrorCollector): Promise<void> {
  for (const [field, refs] of Object.entries(ends)) {
    const kind = refs[0] ? cableEndKind(refs[0].object_type) : undefined;
    if (!kind?.markConnected) continue;
    const { rows } = await sql<{ name: string; parent: string }>`SELECT x.name, (SELECT ${sql.ref(`par.${kind.parent.nameColumn}`)} FROM ${sql.table(kind.parent.table)} par
        WHERE par.id = ${sql.ref(`x.${kind.parent.column}`)}) AS parent
      FROM ${sql.table(kind.table)} x WHERE x.id = ANY(${refs.map((r) => r.object_id)}::uuid[]) AND x.mark_connected AND ${callerTenant(ctx, 'x')}`.execute(tx);
    for (const r of rows) errors.add(field, `${r.parent}${DISPLAY_SEPARATOR}${r.name} is marked connected: clear the mark before cabling it.`);
  }
}

/** What an interface's link peer shows: a plain mapping, so a template cannot reach the peer row itself. */
export interface LinkPeer {
  /** The object across the cable (an interface, a port, a power feed, a circuit termination…) and its id. */
  object_type: string;
  id: string;
  /** What the peer belongs to: its device, or its power panel, circuit… (parent_type says which). */
  device: string;
  parent_type: string;
  /** The peer's name (kept under this key, which templates read, whatever the peer's kind). */
  interface: string;
  name: string;
  display: string;
  description: string;
  custom_fields: Record<string, unknown>;
  /** Ids to link to, in the API and the UI (the far device and object, the cable between). */
  device_id: string;
  /** The peer's id, whatever its kind (see object_type). */
  interface_id: string;
  cable_id: string;
}

/** A cable's end `me`, the objects `p` on its far end (in the tenant) and their devices `d`. */
function peerJoins(tenantId: string): RawBuilder<unknown> {
  return sql`FROM cable_terminations me
    JOIN cable_terminations far ON far.cable_id = me.cable_id AND far.cable_end <> me.cable_end
    JOIN ${cableablePorts()} p ON p.object_type = far.termination_type AND p.id = far.termination_id AND ${inTenant(tenantId, 'p')}`;
}

/** For each port id, the first object on the far end of its cable, interfaces first (one query for the page). */
export async function loadLinkPeers(db: Kysely<DB>, tenantId: string | null, interfaceIds: string[], type: string = 'dcim.interface'): Promise<Map<string, LinkPeer>> {
  const out = new Map<string, LinkPeer>();
  if (interfaceIds.length === 0 || !tenantId) return out;
  const { rows } = await sql<PeerRow & { self: string }>`
    SELECT DISTINCT ON (me.termination_id) me.termination_id AS self, p.object_type, p.parent_name AS device, p.name, p.description, p.custom_fields,
      p.parent_id AS device_id, p.id, me.cable_id, p.parent_type
    ${peerJoins(tenantId)}
    WHERE me.termination_type = ${type} AND me.termination_id = ANY(${interfaceIds}::uuid[])
    ORDER BY me.termination_id, p.object_type <> 'dcim.interface', p.numid`.execute(db);
  for (const r of rows) out.set(r.self, linkPeer(r));
  return out;
}

interface PeerRow {
  object_type: string;
  device: string;
  name: string;
  description: string | null;
  custom_fields: Record<string, unknown> | null;
  device_id: string;
  id: string;
  cable_id: string;
  parent_type: string;
}

function linkPeer(r: PeerRow): LinkPeer {
  return {
    object_type: r.object_type,
    id: r.id,
    device: r.device,
    parent_type: r.parent_type,
    interface: r.name,
    name: r.name,
    display: `${r.device}${DISPLAY_SEPARATOR}${r.name}`,
    description: r.description ?? '',
    custom_fields: r.custom_fields ?? {},
    device_id: r.device_id,
    interface_id: r.id,
    cable_id: r.cable_id,
  };
}

/** What loadLinkPeers reads for one port, beside its row (the port at `alias`): a page costs no query of its own. */
function linkPeerInline(type: string): NonNullable<ComputedField['inline']> {
  return {
    select: (ctx, alias) => {
      if (!ctx.tenantId) return sql`NULL::json`;
      return sql`(SELECT json_build_array(p.object_type, p.parent_name, p.name, p.description, p.custom_fields, p.parent_id, p.id, me.cable_id, p.parent_type)
        ${peerJoins(ctx.tenantId)}
        WHERE me.termination_type = ${type} AND me.termination_id = ${sql.ref(`${alias}.id`)}
        ORDER BY p.object_type <> 'dcim.interface', p.numid LIMIT 1)`;
    },
    value: (selected) => {
      if (!Array.isArray(selected)) return null;
      const [object_type, device, name, description, custom_fields, device_id, id, cable_id, parent_type] = selected as [string, string, string, string | null, Record<string, unknown> | null, string, string, string, string];
      return linkPeer({ object_type, device, name, description, custom_fields, device_id, id, cable_id, parent_type });
    },
  };
}

/** A port's link peer: the object across its cable. */
export function linkPeerOf(type: string): ComputedField {
  return { ...linkPeerField, load: ({ db, ctx, rows }) => loadLinkPeers(db, ctx.tenantId, rows.map((r) => String(r.id)), type), inline: linkPeerInline(type) };
}

export const linkPeerField: ComputedField = {
  label: 'Link peer',
  kind: 'object',
  schema: {
    type: ['object', 'null'],
    properties: {
      object_type: { type: 'string' },
      id: { type: 'string', format: 'uuid' },
      device: { type: 'string', description: 'What the peer belongs to: its device, or its power panel, circuit… (see parent_type).' },
      parent_type: { type: 'string', description: 'The model of what the peer belongs to, e.g. dcim.device.' },
      interface: { type: 'string', description: 'The peer\'s name, whatever its kind.' },
      name: { type: 'string' },
      display: { type: 'string' },
      description: { type: 'string' },
      custom_fields: { type: 'object' },
      device_id: { type: 'string', format: 'uuid', description: 'The id of what the peer belongs to (see parent_type).' },
      interface_id: { type: 'string', format: 'uuid', description: 'The peer\'s id, whatever its kind (see object_type).' },
      cable_id: { type: 'string', format: 'uuid' },
    },
  },
  load: ({ db, ctx, rows }) => loadLinkPeers(db, ctx.tenantId, rows.map((r) => String(r.id))),
  inline: linkPeerInline('dcim.interface'),
};
