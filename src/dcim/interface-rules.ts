// The rules an interface keeps with its neighbours, on every write path (single, bulk, list forms): its LAG and
// its parent are interfaces of the same device (a LAG of type lag), and its 802.1Q VLANs are in the device's
// scope (ipam/vlan-scope.ts), each refusal naming the field and the interface or VLAN at fault.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { ErrorCollector } from '../core/errors.ts';
import { deviceHost, refuseVlansOutOfScope, vlansToCheck } from '../ipam/vlan-scope.ts';

type Row = Record<string, unknown>;

export async function checkInterfaceRelations(tx: Kysely<DB>, input: Record<string, unknown>, existing: Row | null): Promise<void> {
  const device = 'device' in input ? input.device : existing?.device_id;
  if (typeof device !== 'string') return;
  const self = existing ? String(existing.id) : null;
  const errors = new ErrorCollector();

  const related = { lag: 'lag' in input ? input.lag : existing?.lag_id, parent: 'parent' in input ? input.parent : existing?.parent_id };
  const ids = Object.values(related).filter((v): v is string => typeof v === 'string');
  if (ids.length) {
    const { rows } = await sql<{ id: string; name: string; type: string; device_id: string; device: string }>`
      SELECT i.id, i.name, i.type, i.device_id, d.name AS device FROM interfaces i JOIN devices d ON d.id = i.device_id
      WHERE i.id = ANY(${ids}::uuid[])`.execute(tx);
    const byId = new Map(rows.map((r) => [r.id, r]));
    for (const [key, id] of Object.entries(related)) {
      if (typeof id !== 'string') continue;
      const what = key === 'lag' ? 'LAG' : 'parent';
      const other = byId.get(id);
      if (!other) continue;
      if (id === self) errors.add(key, `An interface cannot be its own ${what}.`);
      else if (other.device_id !== device) errors.add(key, `${other.device} › ${other.name} is on another device: the ${what} must be an interface of the same device.`);
      else if (key === 'lag' && other.type !== 'lag') errors.add(key, `${other.device} › ${other.name} is not a LAG (its type is ${other.type}).`);
    }
    if (related.lag && related.lag === related.parent) errors.add('lag', 'The LAG and the parent are the same interface.');
  }

  // VLANs: those sent, or all of them when the interface moves to another device.
  const moving = existing !== null && 'device' in input && input.device !== existing.device_id;
  const vlans = await vlansToCheck(tx, input, existing, moving, { table: 'interface_tagged_vlans', from: 'interface_id' });
  await refuseVlansOutOfScope(tx, errors, deviceHost(device), vlans.ids, vlans.untagged);
  errors.throwIfAny();
}
