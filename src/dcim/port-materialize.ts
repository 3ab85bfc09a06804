// A new device's front and rear ports, from its type's port templates, as its interfaces are (service.ts): one
// insert per table whatever the number of ports, idempotent by name, never touching existing devices later.
import { sql } from 'kysely';
import type { HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { inTenant } from '../core/access.ts';
import { uuidv7 } from '../core/ids.ts';
import { allocateNumids } from '../core/numids.ts';
import { recordChanges, snapshot } from '../core/changelog.ts';
import { customFieldDefaults } from '../extras/custom-fields.ts';
import { displaysOf, type Row } from '../core/crud/serialize.ts';

type AfterCreateArgs = HookArgs & { row: Record<string, unknown> };

export async function materializePorts({ tx, ctx, row }: AfterCreateArgs): Promise<void> {
  const tenantId = String(row.tenant_id);
  const { rows: rears } = await sql<{ id: string; name: string; type: string; positions: number; description: string }>`
    SELECT id, name, type, positions, description FROM rear_port_templates
    WHERE device_type_id = ${row.device_type_id} AND ${inTenant(tenantId)} ORDER BY name_natural`.execute(tx);
  if (rears.length === 0) return;
  const { rows: fronts } = await sql<{ name: string; type: string; rear_port_id: string; rear_port_position: number; description: string }>`
    SELECT name, type, rear_port_id, rear_port_position, description FROM front_port_templates
    WHERE device_type_id = ${row.device_type_id} AND ${inTenant(tenantId)} ORDER BY name_natural`.execute(tx);

  // Rear ports first: each front port names the rear port made from its template's rear port.
  const rearIds = new Map(rears.map((t) => [t.id, uuidv7()]));
  const rearNumid = await allocateNumids(tx, tenantId, 'rear_ports', rears.length);
  const rearFields = JSON.stringify(await customFieldDefaults(tx, tenantId, 'dcim.rearport'));
  const { rows: createdRears } = await sql<Row>`INSERT INTO rear_ports (id, numid, tenant_id, device_id, name, type, positions, description, custom_fields)
    SELECT x.id, x.numid, ${tenantId}, ${row.id}, x.name, x.type, x.positions, x.description, ${rearFields}::jsonb
    FROM unnest(${rears.map((t) => rearIds.get(t.id)!)}::uuid[], ${rears.map((_t, i) => rearNumid + i)}::bigint[], ${rears.map((t) => t.name)}::text[],
      ${rears.map((t) => t.type)}::text[], ${rears.map((t) => t.positions)}::integer[], ${rears.map((t) => t.description)}::text[])
      AS x(id, numid, name, type, positions, description)
    ON CONFLICT (device_id, name) DO NOTHING RETURNING *`.execute(tx);
  // A rear port left as it was (same name already there) keeps its own front ports: only the new ones get fronts.
  const made = new Set(createdRears.map((r) => String(r.id)));
  const frontRows = fronts.filter((f) => made.has(rearIds.get(f.rear_port_id) ?? ''));
  let createdFronts: Row[] = [];
  if (frontRows.length) {
    const frontNumid = await allocateNumids(tx, tenantId, 'front_ports', frontRows.length);
    const frontFields = JSON.stringify(await customFieldDefaults(tx, tenantId, 'dcim.frontport'));
    ({ rows: createdFronts } = await sql<Row>`INSERT INTO front_ports (id, numid, tenant_id, device_id, name, type, rear_port_id, rear_port_position, description, custom_fields)
      SELECT x.id, x.numid, ${tenantId}, ${row.id}, x.name, x.type, x.rear_port_id, x.position, x.description, ${frontFields}::jsonb
      FROM unnest(${frontRows.map(() => uuidv7())}::uuid[], ${frontRows.map((_f, i) => frontNumid + i)}::bigint[], ${frontRows.map((f) => f.name)}::text[],
        ${frontRows.map((f) => f.type)}::text[], ${frontRows.map((f) => rearIds.get(f.rear_port_id)!)}::uuid[], ${frontRows.map((f) => f.rear_port_position)}::integer[],
        ${frontRows.map((f) => f.description)}::text[])
        AS x(id, numid, name, type, rear_port_id, position, description)
      ON CONFLICT (device_id, name) DO NOTHING RETURNING *`.execute(tx));
  }
  for (const [modelName, created] of [['dcim.rearport', createdRears], ['dcim.frontport', createdFronts]] as const) {
    if (created.length === 0) continue;
    const model = requireModel(modelName);
    const reprs = await displaysOf(tx, ctx, model, created);
    await recordChanges(
      tx,
      ctx,
      created.map((r) => ({ model, action: 'create' as const, objectId: String(r.id), repr: reprs.get(String(r.id))!, before: null, after: snapshot(model, r), tenantId })),
    );
  }
}
