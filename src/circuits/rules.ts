// The rules NetBox enforces on circuits and their terminations, beyond what the field kinds and the unique keys
// say: an account of the circuit's own provider; a termination naming a site, location or provider network of the
// tenant; and the cables that go with a termination (or a whole circuit's).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import type { RequestContext } from '../core/context.ts';
import type { HookArgs } from '../core/registry.ts';
import { requireModel } from '../core/registry.ts';
import { fieldError } from '../core/errors.ts';
import { callerTenant } from '../core/access.ts';
import { deleteCablesLosingAnEnd } from '../dcim/cabling.ts';

type ValidateArgs = HookArgs & { input: Record<string, unknown>; existing: Record<string, unknown> | null };

/** The value a write leaves in field `key` (column `column`): what was sent, else what is stored. */
function after(input: Record<string, unknown>, existing: Record<string, unknown> | null, key: string, column = `${key}_id`): unknown {
  return key in input ? input[key] : existing?.[column];
}

/** A circuit's provider account is one of the circuit's provider's accounts. */
export async function checkCircuitAccount({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  if (existing && !('provider' in input) && !('provider_account' in input)) return;
  const provider = after(input, existing, 'provider');
  const account = after(input, existing, 'provider_account');
  if (typeof account !== 'string' || typeof provider !== 'string') return;
  const { rows } = await sql<{ provider_id: string; account: string; provider: string }>`SELECT a.provider_id, a.account, p.name AS provider
    FROM provider_accounts a JOIN providers p ON p.id = a.provider_id WHERE a.id = ${account} AND ${callerTenant(ctx, 'a')}`.execute(tx);
  const r = rows[0];
  // A missing account is reported by the generic reference check.
  if (r && r.provider_id !== provider) {
    throw fieldError('provider_account', `Account ${r.account} belongs to ${r.provider}: choose an account of the circuit's provider.`);
  }
}

/** What each termination_type names: the model (for its table and label). */
const TERMINATION_TARGETS: Record<string, string> = {
  'dcim.site': 'organization.site',
  'dcim.location': 'dcim.location',
  'circuits.providernetwork': 'circuits.providernetwork',
};

/**
 * A termination ends on a site, location or provider network of the tenant (ids of other tenants read as missing),
 * and one on a provider network takes no cable (NetBox: the path ends at the network).
 */
export async function checkTerminationTarget({ tx, ctx, input, existing }: ValidateArgs): Promise<void> {
  if (existing && !('termination_type' in input) && !('termination_id' in input)) return;
  const type = after(input, existing, 'termination_type', 'termination_type');
  const id = after(input, existing, 'termination_id', 'termination_id');
  const target = typeof type === 'string' ? TERMINATION_TARGETS[type] : undefined;
  if (!target || typeof id !== 'string') return;
  const model = requireModel(target);
  const { rows } = await sql`SELECT 1 FROM ${sql.table(model.table)} t WHERE t.id = ${id} AND ${callerTenant(ctx, 't')}`.execute(tx);
  if (rows.length === 0) throw fieldError('termination_id', `No ${model.label} with id ${id} exists.`);
  if (type === 'circuits.providernetwork' && existing) {
    const cabled = await sql`SELECT 1 FROM cable_terminations WHERE termination_type = 'circuits.circuittermination' AND termination_id = ${existing.id}`.execute(tx);
    if (cabled.rows.length) throw fieldError('termination_type', 'This termination has a cable; a termination on a provider network takes none: delete the cable first.');
  }
}

/** Terminations about to be deleted: the cables they end. */
export function deleteTerminationCables(tx: Kysely<DB>, ctx: RequestContext, ids: string[]): Promise<void> {
  return deleteCablesLosingAnEnd(tx, ctx, ids.map((id) => ({ type: 'circuits.circuittermination', id })));
}

/** Circuits about to be deleted take their terminations with them (cascade): the cables of those. */
export async function deleteCablesOfCircuits(tx: Kysely<DB>, ctx: RequestContext, circuitIds: string[]): Promise<void> {
  const { rows } = await sql<{ id: string }>`SELECT id FROM circuit_terminations WHERE circuit_id = ANY(${circuitIds}::uuid[])`.execute(tx);
  await deleteTerminationCables(tx, ctx, rows.map((r) => r.id));
}
