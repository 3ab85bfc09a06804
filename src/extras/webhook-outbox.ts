// The webhook outbox. A change's matching webhooks are found and queued in the writer's own transaction (one
// statement per recordChanges call, whatever the number of rows), so a rolled-back write leaves nothing to send,
// and a process dying right after the commit loses nothing either. Nothing is sent from here: the worker claims
// committed rows (claimDueDeliveries), woken by the commit's notification or at its next tick, and hands them to the
// pg-boss delivery queue.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { onChangesRecorded, type RecordedChange } from '../core/changelog.ts';
import { sameTenant, tenantColumn, tenantKeys } from '../core/access.ts';
import { DISPATCH_CHANNEL } from '../jobs/registry.ts';

/** create → created, update → updated, delete → deleted; other actions (reveal) have no webhook event. */
export function eventOf(action: string): string | null {
  return action === 'create' || action === 'update' || action === 'delete' ? `${action}d` : null;
}

export async function queueWebhookDeliveries(tx: Kysely<DB>, changes: RecordedChange[]): Promise<void> {
  const candidates = changes.filter((c) => c.tenant !== null && eventOf(c.action) !== null);
  if (candidates.length === 0) return;
  // Most writes are in tenants without an enabled webhook: a look at the (few) webhooks first spares sending every
  // change's id, event and type (a bulk load's 20,000-row chunks) for a join that finds nothing.
  const tenants = [...new Set(candidates.map((c) => c.tenant!))];
  const { rows: hooked } = await sql`SELECT 1 FROM ${tenantKeys('t', tenants, [])} JOIN webhooks w ON ${sameTenant('w', 't')} AND w.enabled LIMIT 1`.execute(tx);
  if (hooked.length === 0) return;
  // Announced to the dispatchers when anything was queued (DISPATCH_CHANNEL): delivered once this transaction
  // commits, in the same statement.
  await sql`WITH queued AS (INSERT INTO webhook_outbox (id, ${tenantColumn()}, webhook_id, change_id)
    SELECT gen_random_uuid(), ${tenantColumn('w')}, w.id, c.id
    FROM ${tenantKeys('c', candidates.map((c) => c.tenant!), [
      { name: 'id', type: 'uuid', values: candidates.map((c) => c.id) },
      { name: 'event', type: 'text', values: candidates.map((c) => eventOf(c.action)) },
      { name: 'object_type', type: 'text', values: candidates.map((c) => c.object_type) },
    ])}
    JOIN webhooks w ON ${sameTenant('w', 'c')} AND w.enabled AND c.object_type = ANY(w.object_types) AND c.event = ANY(w.events)
    RETURNING 1)
    SELECT pg_notify(${DISPATCH_CHANNEL}, '') FROM queued LIMIT 1`.execute(tx);
}

onChangesRecorded(queueWebhookDeliveries);

/** How long a claimed row is left to one worker before another may take it (longer than any one attempt). */
const CLAIM_LEASE = sql`interval '5 minutes'`;

/** Claims outbox rows whose next try is due; several workers never claim the same row. */
export async function claimDueDeliveries(db: Kysely<DB>, limit = 100): Promise<string[]> {
  const { rows } = await sql<{ id: string }>`UPDATE webhook_outbox SET claimed_until = now() + ${CLAIM_LEASE}
    WHERE id IN (SELECT id FROM webhook_outbox WHERE next_attempt_at <= now() AND (claimed_until IS NULL OR claimed_until < now())
      ORDER BY next_attempt_at LIMIT ${limit} FOR UPDATE SKIP LOCKED)
    RETURNING id`.execute(db);
  return rows.map((r) => r.id);
}
