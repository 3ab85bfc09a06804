// Webhook deliveries as a queue of the job registry: the host's dispatch tick claims committed outbox rows that
// are due, and each becomes a pg-boss job, so any number of worker processes share them and never deliver one
// twice. Retries are ours (webhook_outbox.next_attempt_at), so every attempt is recorded.
import { defineQueue } from '../jobs/registry.ts';
import { attemptDelivery, webhookSettings } from './webhook-delivery.ts';
import { claimDueDeliveries } from './webhook-outbox.ts';

defineQueue<{ outboxId: string }>({
  name: 'webhook-delivery',
  expireInSeconds: 120,
  batchSize: 10,
  claim: async (db) => (await claimDueDeliveries(db)).map((outboxId) => ({ outboxId })),
  work: async (db, items, env) => {
    const settings = webhookSettings(env);
    // One receiver being slow must not hold up the others of the batch; a failed item (a database error) stays
    // claimed until its lease runs out and another dispatch retries it.
    const outcomes = await Promise.allSettled(items.map((i) => attemptDelivery(db, i.outboxId, settings)));
    for (const o of outcomes) if (o.status === 'rejected') console.error(`webhook delivery failed: ${(o.reason as Error)?.message ?? String(o.reason)}`);
  },
});
