// Folds the kept row counts' delta rows (src/core/crud/row-counts.ts) every ten minutes by default
// (CAIRN_ROW_COUNT_FOLD_CRON). A list read folds its own table's deltas; this bounds the tables no one lists
// unfiltered, whose deltas would otherwise pile up with every write. Cheap and frequent, so it keeps no job record.
import { foldAllRowCounts } from '../core/crud/row-counts.ts';
import { defineSchedule } from '../jobs/registry.ts';

export const ROW_COUNT_FOLD_SCHEDULE = process.env.CAIRN_ROW_COUNT_FOLD_CRON ?? '*/10 * * * *';

defineSchedule({
  name: 'row-count-fold',
  kind: 'housekeeping.row-counts',
  description: 'Fold the delta rows of the kept list counts into one row per table and tenant.',
  schedule: ROW_COUNT_FOLD_SCHEDULE,
  setting: 'CAIRN_ROW_COUNT_FOLD_CRON',
  scope: 'deployment',
  run: async (db) => {
    await foldAllRowCounts(db);
  },
});
