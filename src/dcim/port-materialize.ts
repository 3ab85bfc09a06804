// A new device's front and rear ports, from its type's port templates, as its interfaces are (service.ts): one
// insert per table whatever the number of ports, idempotent by name, never touching existing devices later.
import { sql } from 'kysely';
import type { HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { insertRows } from '../core/crud/insert-rows.ts';

type AfterCreateArgs = HookArgs & { row: Record<string, unknown> };

export async function materializePorts({ tx, ctx, row }: AfterCreateArgs): Promise<void> {
  // The templates are read in the tenant insertRows writes the ports into: the caller's.
  const { rows: rears } = await sql<{ id: string; name: string; type: string; positions: number; description: string }>`
    SELECT id, name, type, positions, description FROM rear_port_templates
    WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx);
  if (rears.length === 0) return;
  const { rows: fronts } = await sql<{ name: string; type: string; rear_port_id: string; rear_port_position: number; description: string }>`
    SELECT name, type, rear_port_id, rear_port_position, description FROM front_port_templates
    WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx);

  // Rear ports first: each front port names the rear port made from its template's rear port.
  const createdRears = await insertRows(
    tx,
    ctx,
    requireModel('dcim.rearport'),
    rears.map((t) => ({ device_id: row.id, name: t.name, type: t.type, positions: t.positions, description: t.description })),
    { skipExistingOn: ['device_id', 'name'] },
  );
  // A rear port left as it was (same name already there) keeps its own front ports: only the new ones get fronts.
  const rearOfTemplate = new Map(rears.map((t) => [t.id, createdRears.find((r) => r.name === t.name)]));
  const frontRows = fronts.filter((f) => rearOfTemplate.get(f.rear_port_id));
  await insertRows(
    tx,
    ctx,
    requireModel('dcim.frontport'),
    frontRows.map((f) => ({ device_id: row.id, name: f.name, type: f.type, rear_port_id: rearOfTemplate.get(f.rear_port_id)!.id, rear_port_position: f.rear_port_position, description: f.description })),
    { skipExistingOn: ['device_id', 'name'] },
  );
}
