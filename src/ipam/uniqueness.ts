// Duplicate addresses and prefixes (NetBox's enforce_unique): refused within a VRF that enforces uniqueness
// (the default), and in the global table unless the deployment allows them (CAIRN_ENFORCE_GLOBAL_UNIQUE=false,
// NetBox's ENFORCE_GLOBAL_UNIQUE). Checked after the row is written, under a transaction-scoped advisory lock per
// tenant and VRF, so two concurrent writers of the same address cannot both pass: the second one reads the
// first one's committed row once it holds the lock.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { sameTenant, tenantOf } from '../core/access.ts';
import { badRequest } from '../core/errors.ts';
import type { Row } from '../core/crud/serialize.ts';

/** The deployment setting for the global table (read when used, so a restart with another value applies it). */
export function globalUniqueEnforced(env: NodeJS.ProcessEnv = process.env): boolean {
  return !['false', '0', 'no'].includes((env.CAIRN_ENFORCE_GLOBAL_UNIQUE ?? 'true').toLowerCase());
}

type Kind = 'address' | 'prefix';

const SPEC: Record<Kind, { table: string; column: string; same: (a: string, b: string) => ReturnType<typeof sql> }> = {
  // An address is the same whatever its mask (10.0.0.1/24 and 10.0.0.1/32 are one host).
  address: { table: 'ip_addresses', column: 'address', same: (a, b) => sql`host(${sql.ref(`${a}.address`)}) = host(${sql.ref(`${b}.address`)})` },
  prefix: { table: 'prefixes', column: 'prefix', same: (a, b) => sql`${sql.ref(`${a}.prefix`)} = ${sql.ref(`${b}.prefix`)}` },
};

async function lockSpace(tx: Kysely<DB>, tenantId: string, vrfId: unknown): Promise<void> {
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`cairn.ipam.unique:${tenantId}:${vrfId ?? 'global'}`}, 0))`.execute(tx);
}

/** Whether the space a row lives in (its VRF, or the global table) refuses duplicates. */
async function enforced(tx: Kysely<DB>, vrfId: unknown): Promise<{ enforced: boolean; where: string }> {
  if (vrfId === null || vrfId === undefined) return { enforced: globalUniqueEnforced(), where: 'the global table' };
  const { rows } = await sql<{ name: string; enforce_unique: boolean }>`SELECT name, enforce_unique FROM vrfs WHERE id = ${vrfId}`.execute(tx);
  return { enforced: rows[0]?.enforce_unique ?? true, where: `VRF ${rows[0]?.name ?? String(vrfId)}` };
}

/**
 * Refuses (400 naming the field, the existing row and its assignment) when one of `rows`, as now written, has a
 * twin in its tenant and VRF. Rows are grouped by space so each lock is taken once, in a stable order.
 */
export async function refuseDuplicates(tx: Kysely<DB>, kind: Kind, rows: Row[]): Promise<void> {
  const spec = SPEC[kind];
  const spaces = new Map<string, Row[]>();
  for (const r of rows) {
    const key = `${tenantOf(r)}:${String(r.vrf_id ?? '')}`;
    spaces.set(key, [...(spaces.get(key) ?? []), r]);
  }
  for (const key of [...spaces.keys()].sort()) {
    const group = spaces.get(key)!;
    const tenantId = tenantOf(group[0]!);
    const vrfId = group[0]!.vrf_id;
    const space = await enforced(tx, vrfId);
    if (!space.enforced) continue;
    await lockSpace(tx, tenantId, vrfId);
    const ids = group.map((r) => String(r.id));
    const { rows: twins } = await sql<{ id: string; mine: string; value: string; device: string | null; iface: string | null; vm: string | null; vmiface: string | null }>`
      SELECT o.id, m.id AS mine, o.${sql.raw(spec.column)}::text AS value,
        ${kind === 'address' ? sql`d.name AS device, i.name AS iface, v.name AS vm, vi.name AS vmiface` : sql`NULL AS device, NULL AS iface, NULL AS vm, NULL AS vmiface`}
      FROM ${sql.table(spec.table)} m
      JOIN ${sql.table(spec.table)} o ON ${sameTenant('o', 'm')} AND o.vrf_id IS NOT DISTINCT FROM m.vrf_id AND ${spec.same('o', 'm')} AND o.id <> m.id
      ${kind === 'address' ? sql`LEFT JOIN interfaces i ON i.id = o.assigned_interface_id LEFT JOIN devices d ON d.id = i.device_id
        LEFT JOIN vm_interfaces vi ON vi.id = o.assigned_vm_interface_id LEFT JOIN virtual_machines v ON v.id = vi.virtual_machine_id` : sql``}
      WHERE m.id = ANY(${ids}::uuid[])
      ORDER BY o.id LIMIT 1`.execute(tx);
    const twin = twins[0];
    if (!twin) continue;
    const assignment = twin.device ? `assigned to ${twin.device} › ${twin.iface}` : twin.vm ? `assigned to ${twin.vm} › ${twin.vmiface}` : kind === 'address' ? 'not assigned' : null;
    throw badRequest({
      [spec.column]: [`${twin.value} already exists in ${space.where}${assignment ? ` (${assignment})` : ''}: ${kind === 'address' ? 'addresses' : 'prefixes'} are unique there.`],
    });
  }
}

function placed(kind: Kind, before: Row, row: Row): boolean {
  return before[SPEC[kind].column] !== row[SPEC[kind].column] || before.vrf_id !== row.vrf_id;
}

/** The hooks a model adds to keep its rows unique: every create, every move, single or bulk. */
export function uniquenessHooks(kind: Kind) {
  return {
    afterCreate: ({ tx, row }: { tx: Kysely<DB>; row: Row }) => refuseDuplicates(tx, kind, [row]),
    afterUpdate: async ({ tx, before, row, inBulk }: { tx: Kysely<DB>; before: Row; row: Row; inBulk?: boolean }) => {
      if (!inBulk && placed(kind, before, row)) await refuseDuplicates(tx, kind, [row]);
    },
    afterUpdateMany: async ({ tx, rows }: { tx: Kysely<DB>; rows: Array<{ before: Row; row: Row }> }) => {
      await refuseDuplicates(tx, kind, rows.filter((r) => placed(kind, r.before, r.row)).map((r) => r.row));
    },
  };
}
