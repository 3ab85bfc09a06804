// Cable ends: what may be cabled (interfaces, front and rear ports), the cables that go when a port goes, and an
// interface's link peer (the object across its cable). The ends live in cable_terminations, one row per port,
// keyed by the port: that key is what keeps a port on one cable (see migration 0027).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { ComputedField, HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { recordChanges, snapshot } from '../core/changelog.ts';
import { callerTenant, inTenant, tenantColumn, tenantOf } from '../core/access.ts';
import { displayOf, DISPLAY_SEPARATOR, type Row } from '../core/crud/serialize.ts';
import type { GenericRef } from '../core/crud/field-values.ts';

export const TERMINATION_TYPES = ['dcim.interface', 'dcim.frontport', 'dcim.rearport'] as const;
export type TerminationType = (typeof TERMINATION_TYPES)[number];

/** A cable end as stored: the port's model and id. */
export interface Termination {
  type: string;
  id: string;
}

/**
 * Every port a cable may end on, as one relation with the model name beside each row. Filters on it (id, tenant)
 * are pushed into each branch by the planner, so it costs what the three lookups would.
 */
export const CABLEABLE_PORTS: RawBuilder<unknown> = sql`(
  SELECT 'dcim.interface'::text AS object_type, id, numid, ${tenantColumn()}, device_id, name, name_natural, type, description, custom_fields,
    NULL::uuid AS rear_port_id, NULL::integer AS rear_port_position, NULL::integer AS positions FROM interfaces
  UNION ALL SELECT 'dcim.frontport', id, numid, ${tenantColumn()}, device_id, name, name_natural, type, description, custom_fields,
    rear_port_id, rear_port_position, NULL FROM front_ports
  UNION ALL SELECT 'dcim.rearport', id, numid, ${tenantColumn()}, device_id, name, name_natural, type, description, custom_fields,
    NULL, NULL, positions FROM rear_ports
)`;

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
  const { rows } = await sql<{ type: string; id: string }>`SELECT p.object_type AS type, p.id FROM ${CABLEABLE_PORTS} p
    WHERE p.device_id = ANY(${deviceIds}::uuid[])`.execute(tx);
  await deleteCablesLosingAnEnd(tx, ctx, rows);
}

/** Rear ports about to be deleted take their front ports with them (cascade): the cables of both. */
export async function deleteCablesOfRearPorts(tx: Kysely<DB>, ctx: RequestContext, rearPortIds: string[]): Promise<void> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM front_ports WHERE rear_port_id = ANY(${rearPortIds}::uuid[])`.execute(tx);
  await deleteCablesLosingAnEnd(tx, ctx, [...rearPortIds.map((id) => ({ type: 'dcim.rearport', id })), ...rows.map((r) => ({ type: 'dcim.frontport', id: r.id }))]);
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
    if (new Set(refs.map((r) => r.object_type)).size > 1) errors.add(field, 'All the objects of one cable end must be of one kind (interfaces, front ports or rear ports).');
  }
  const all = [...ends.a_terminations, ...ends.b_terminations];
  if (all.length) {
    const { rows } = await sql<{ object_type: string; id: string; name: string; type: string; device: string; cabled: boolean }>`
      SELECT p.object_type, p.id, p.name, p.type, d.name AS device,
        EXISTS (SELECT 1 FROM cable_terminations t WHERE t.termination_type = p.object_type AND t.termination_id = p.id
          AND t.cable_id IS DISTINCT FROM ${existing?.id ?? null}::uuid) AS cabled
      FROM ${CABLEABLE_PORTS} p JOIN devices d ON d.id = p.device_id
      WHERE (p.object_type, p.id) IN (SELECT * FROM unnest(${all.map((r) => r.object_type)}::text[], ${all.map((r) => r.object_id)}::uuid[]))
        AND ${callerTenant(ctx, 'p')}`.execute(tx);
    for (const r of rows) {
      const shown = `${r.device}${DISPLAY_SEPARATOR}${r.name}`;
      const field = onA.has(`${r.object_type}:${r.id}`) ? 'a_terminations' : 'b_terminations';
      if (onA.has(`${r.object_type}:${r.id}`) && ends.b_terminations.some((b) => key(b) === `${r.object_type}:${r.id}`)) errors.add('b_terminations', `${shown} cannot be on both ends.`);
      if (r.cabled) errors.add(field, `${shown} is already connected by another cable.`);
      if (r.object_type === 'dcim.interface' && VIRTUAL_TYPES.has(r.type)) errors.add(field, `${shown} is a ${r.type} interface and cannot be cabled.`);
    }
  }
  errors.throwIfAny();
}

/** What an interface's link peer shows: a plain mapping, so a template cannot reach the peer row itself. */
export interface LinkPeer {
  /** The object across the cable (an interface, a front port or a rear port) and its id. */
  object_type: string;
  id: string;
  device: string;
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
    JOIN ${CABLEABLE_PORTS} p ON p.object_type = far.termination_type AND p.id = far.termination_id AND ${inTenant(tenantId, 'p')}
    JOIN devices d ON d.id = p.device_id`;
}

/** For each port id, the first object on the far end of its cable, interfaces first (one query for the page). */
export async function loadLinkPeers(db: Kysely<DB>, tenantId: string | null, interfaceIds: string[], type: TerminationType = 'dcim.interface'): Promise<Map<string, LinkPeer>> {
  const out = new Map<string, LinkPeer>();
  if (interfaceIds.length === 0 || !tenantId) return out;
  const { rows } = await sql<PeerRow & { self: string }>`
    SELECT DISTINCT ON (me.termination_id) me.termination_id AS self, p.object_type, d.name AS device, p.name, p.description, p.custom_fields,
      d.id AS device_id, p.id, me.cable_id
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
}

function linkPeer(r: PeerRow): LinkPeer {
  return {
    object_type: r.object_type,
    id: r.id,
    device: r.device,
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
function linkPeerInline(type: TerminationType): NonNullable<ComputedField['inline']> {
  return {
    select: (ctx, alias) => {
      if (!ctx.tenantId) return sql`NULL::json`;
      return sql`(SELECT json_build_array(p.object_type, d.name, p.name, p.description, p.custom_fields, d.id, p.id, me.cable_id)
        ${peerJoins(ctx.tenantId)}
        WHERE me.termination_type = ${type} AND me.termination_id = ${sql.ref(`${alias}.id`)}
        ORDER BY p.object_type <> 'dcim.interface', p.numid LIMIT 1)`;
    },
    value: (selected) => {
      if (!Array.isArray(selected)) return null;
      const [object_type, device, name, description, custom_fields, device_id, id, cable_id] = selected as [string, string, string, string | null, Record<string, unknown> | null, string, string, string];
      return linkPeer({ object_type, device, name, description, custom_fields, device_id, id, cable_id });
    },
  };
}

/** A port's link peer: the object across its cable. */
export function linkPeerOf(type: TerminationType): ComputedField {
  return { ...linkPeerField, load: ({ db, ctx, rows }) => loadLinkPeers(db, ctx.tenantId, rows.map((r) => String(r.id)), type), inline: linkPeerInline(type) };
}

export const linkPeerField: ComputedField = {
  label: 'Link peer',
  kind: 'object',
  schema: {
    type: ['object', 'null'],
    properties: {
      object_type: { type: 'string', enum: [...TERMINATION_TYPES] },
      id: { type: 'string', format: 'uuid' },
      device: { type: 'string' },
      interface: { type: 'string', description: 'The peer\'s name, whatever its kind.' },
      name: { type: 'string' },
      display: { type: 'string' },
      description: { type: 'string' },
      custom_fields: { type: 'object' },
      device_id: { type: 'string', format: 'uuid' },
      interface_id: { type: 'string', format: 'uuid', description: 'The peer\'s id, whatever its kind (see object_type).' },
      cable_id: { type: 'string', format: 'uuid' },
    },
  },
  load: ({ db, ctx, rows }) => loadLinkPeers(db, ctx.tenantId, rows.map((r) => String(r.id))),
  inline: linkPeerInline('dcim.interface'),
};
