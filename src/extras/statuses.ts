// The per-tenant status catalog: the default statuses every tenant starts with, and the rules a model's
// `status` field follows (only statuses available to that model; the model's default when none is sent).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { HookArgs } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { insertRows } from '../core/crud/insert-rows.ts';
import { systemContext } from '../core/context.ts';
import { addModelHook, allModels, columnOf, requireModel } from '../core/registry.ts';
import { inTenant, tenantOf } from '../core/access.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

interface StatusSeed {
  name: string;
  slug: string;
  color: string;
  available_to: string[];
  default_for: string[];
}

const DEVICE = 'dcim.device';
const ADDRESS = 'ipam.ipaddress';
const PREFIX = 'ipam.prefix';
const VLAN = 'ipam.vlan';
const RANGE = 'ipam.iprange';
const CABLE = 'dcim.cable';
const SITE = 'organization.site';

// NetBox's starting statuses: a prefix may be a container (its utilisation counts child prefixes, not addresses); a
// cable is Connected unless said otherwise, or Planned, or being Decommissioned; a site Active, Planned or being
// Decommissioned.
export const DEFAULT_STATUSES: readonly StatusSeed[] = [
  { name: 'Active', slug: 'active', color: '4caf50', available_to: [DEVICE, ADDRESS, PREFIX, VLAN, RANGE, SITE], default_for: [DEVICE, ADDRESS, PREFIX, VLAN, RANGE, SITE] },
  { name: 'Planned', slug: 'planned', color: '00bcd4', available_to: [DEVICE, CABLE, SITE], default_for: [] },
  { name: 'Offline', slug: 'offline', color: 'ff9800', available_to: [DEVICE], default_for: [] },
  { name: 'Decommissioning', slug: 'decommissioning', color: 'ffc107', available_to: [DEVICE, CABLE, SITE], default_for: [] },
  { name: 'Reserved', slug: 'reserved', color: '00bcd4', available_to: [ADDRESS, PREFIX, VLAN, RANGE], default_for: [] },
  { name: 'Deprecated', slug: 'deprecated', color: 'f44336', available_to: [ADDRESS, PREFIX, VLAN, RANGE], default_for: [] },
  { name: 'Container', slug: 'container', color: '9e9e9e', available_to: [PREFIX], default_for: [] },
  { name: 'Connected', slug: 'connected', color: '4caf50', available_to: [CABLE], default_for: [CABLE] },
];

const CIRCUIT = 'circuits.circuit';

/**
 * What a tenant made now starts with: DEFAULT_STATUSES (what migration 0002 seeded, kept as it was) and NetBox's
 * circuit statuses, which migration 0046 gave the tenants made before: Active (circuits' default), Planned and
 * Offline open to circuits, and Provisioning, Deprovisioning and Decommissioned of their own.
 */
export const TENANT_STATUSES: readonly StatusSeed[] = [
  ...DEFAULT_STATUSES.map((s) => (['active', 'planned', 'offline'].includes(s.slug)
    ? { ...s, available_to: [...s.available_to, CIRCUIT], default_for: s.slug === 'active' ? [...s.default_for, CIRCUIT] : s.default_for }
    : s)),
  { name: 'Provisioning', slug: 'provisioning', color: '2196f3', available_to: [CIRCUIT], default_for: [] },
  { name: 'Deprovisioning', slug: 'deprovisioning', color: 'ffc107', available_to: [CIRCUIT], default_for: [] },
  { name: 'Decommissioned', slug: 'decommissioned', color: '9e9e9e', available_to: [CIRCUIT], default_for: [] },
];

/**
 * Adds the default statuses to a tenant through the core's write path (change log, search index), in one
 * statement; names already taken are left alone.
 */
export async function seedDefaultStatuses(tx: Kysely<DB>, tenantId: string): Promise<void> {
  await insertRows(tx, systemContext(tenantId), requireModel('extras.status'), TENANT_STATUSES.map((s) => ({ ...s })), { skipExistingOn: 'any' });
}

/** Refuses a status that is not available to `modelName` (installed on every status field by wireStatusFields). */
export async function checkStatusAvailable(tx: Kysely<DB>, tenantId: string | null, modelName: string, statusId: unknown, field = 'status'): Promise<void> {
  if (typeof statusId !== 'string') return;
  const { rows } = await sql<{ name: string; ok: boolean }>`SELECT name, ${modelName} = ANY(available_to) AS ok FROM statuses
    WHERE id = ${statusId} AND ${inTenant(tenantId)}`.execute(tx);
  // A missing status is reported by the generic reference check with the usual message.
  if (rows[0] && !rows[0].ok) throw fieldError(field, `Status "${rows[0].name}" is not available to ${modelName}; add it to the status's available_to first.`);
}

/**
 * Gives a freshly created row the tenant's default status for its model when the request sent none. Runs in
 * afterCreate (the registry has no defaults that depend on data) and updates `row` in place so the answer and
 * the change log show the status.
 */
export async function applyDefaultStatus(args: HookArgs & { row: Record<string, unknown> }, column = 'status_id'): Promise<void> {
  const { tx, model, row } = args;
  if (row[column] !== null && row[column] !== undefined) return;
  // Writes only when the tenant has a default for the model.
  const { rows } = await sql<Record<string, unknown>>`UPDATE ${sql.table(model.table)} t SET ${sql.ref(column)} = d.id
    FROM (SELECT s.id FROM statuses s WHERE ${inTenant(tenantOf(row), 's')} AND ${model.name} = ANY(s.default_for) ORDER BY s.numid LIMIT 1) d
    WHERE t.id = ${row.id} RETURNING t.*`.execute(tx);
  if (rows[0]) Object.assign(row, rows[0]);
}

/**
 * The one place a catalog status's rules are installed: every field of every model that targets `extras.status`
 * gets availability on write (validate) and the tenant's default on create (afterCreate), both ahead of the
 * model's own hooks, so a prefix's utilisation and hierarchy see the status the row will keep. Called once by
 * src/models.ts after every model is defined; a model declares only the field.
 */
export function wireStatusFields(): void {
  for (const model of allModels()) {
    for (const [key, field] of Object.entries(model.fields)) {
      if (field.kind !== 'fk' || field.target !== 'extras.status') continue;
      const column = columnOf(key, field);
      addModelHook(model.name, 'validate', ({ tx, ctx, input }) => checkStatusAvailable(tx, ctx.tenantId, model.name, input[key], key), { first: true, bulkLoad: PLANNED_BY_LOADERS });
      addModelHook(model.name, 'afterCreate', (args) => applyDefaultStatus(args, column), { first: true });
    }
  }
}
