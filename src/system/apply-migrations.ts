// `cairn migrate`'s work, which an upgrade's stage also does in its own process (src/upgrade/engine/release-work.ts).
import type { Database } from '../db/database.ts';
import { migrateIfReadable, migrateToLatest } from '../db/migrator.ts';
import { queueSearchRebuild } from '../search/rebuild.ts';
import '../models.ts';

/**
 * Applies the pending migrations; returns the lines to print. `onlyIfReadable`: only when the code before them can
 * still read the result, else NotReadableByPrevious and nothing applied (an upgrade whose old web answers reads).
 */
export async function applyMigrations(database: Database, opts: { onlyIfReadable?: boolean } = {}): Promise<string[]> {
  const applied = await (opts.onlyIfReadable ? migrateIfReadable(database.db) : migrateToLatest(database.db));
  if (!applied.length) return ['No pending migrations.'];
  // After an upgrade the registry may index other fields. Queued, not run: the worker rebuilds when it starts, so
  // the upgrade's downtime does not grow with the inventory.
  await queueSearchRebuild(database.db, 'system');
  return [
    `Applied ${applied.length} migration(s): ${applied.join(', ')}`,
    'Search index rebuild queued: it runs when background work starts (or run cairn rebuild now).',
  ];
}
