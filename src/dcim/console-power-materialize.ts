// A new device's console, console server and power ports and its power outlets, from its type's templates, as its
// interfaces and front/rear ports are: one insert per table whatever the number of components, idempotent by name,
// never touching existing devices later. Each outlet is fed by the power port made from its template's power port.
import { sql } from 'kysely';
import type { HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { callerTenant } from '../core/access.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { registerDeviceMaterializer } from './service.ts';

type AfterCreateArgs = HookArgs & { row: Record<string, unknown> };
type Template = { id: string; name: string; label: string; type: string | null; description: string };

async function materializeConsolePower({ tx, ctx, row }: AfterCreateArgs): Promise<void> {
  // The templates are read in the tenant insertRows writes the components into: the caller's.
  const read = async <T extends Template>(table: string, extra: string[] = []) =>
    (await sql<T>`SELECT id, name, label, type, description${sql.raw(extra.map((c) => `, ${c}`).join(''))} FROM ${sql.table(table)}
      WHERE device_type_id = ${row.device_type_id} AND ${callerTenant(ctx)} ORDER BY name_natural`.execute(tx)).rows;
  const plain = ({ name, label, type, description }: Template) => ({ device_id: row.id, name, label, type, description });
  const skip = { skipExistingOn: ['device_id', 'name'] };

  for (const [table, model] of [['console_port_templates', 'dcim.consoleport'], ['console_server_port_templates', 'dcim.consoleserverport']] as const) {
    const templates = await read(table);
    if (templates.length) await insertRows(tx, ctx, requireModel(model), templates.map(plain), skip);
  }
  const ports = await read<Template & { maximum_draw: number | null; allocated_draw: number | null }>('power_port_templates', ['maximum_draw', 'allocated_draw']);
  const createdPorts = ports.length
    ? await insertRows(tx, ctx, requireModel('dcim.powerport'), ports.map((t) => ({ ...plain(t), maximum_draw: t.maximum_draw, allocated_draw: t.allocated_draw })), skip)
    : [];
  const outlets = await read<Template & { power_port_id: string | null; feed_leg: string | null }>('power_outlet_templates', ['power_port_id', 'feed_leg']);
  if (outlets.length === 0) return;
  // A port left as it was (same name already there) is still the one its outlets are fed by: looked up by name.
  const portName = new Map(ports.map((t) => [t.id, t.name]));
  const portId = new Map(createdPorts.map((p) => [String(p.name), String(p.id)]));
  if (ports.length && portId.size < ports.length) {
    const { rows } = await sql<{ id: string; name: string }>`SELECT id, name FROM power_ports WHERE device_id = ${row.id} AND ${callerTenant(ctx)}`.execute(tx);
    for (const r of rows) if (!portId.has(r.name)) portId.set(r.name, r.id);
  }
  await insertRows(
    tx,
    ctx,
    requireModel('dcim.poweroutlet'),
    outlets.map((t) => ({ ...plain(t), feed_leg: t.feed_leg, power_port_id: t.power_port_id ? portId.get(portName.get(t.power_port_id) ?? '') ?? null : null })),
    skip,
  );
}

registerDeviceMaterializer(materializeConsolePower);
