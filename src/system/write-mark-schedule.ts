// Sweeps the write marks of read-your-writes (src/core/read-routing.ts) every ten minutes: a mark older than the
// replicas' lag limit decides nothing any more. Cheap, so it keeps no job record.
import { sweepWriteMarks } from '../core/read-routing.ts';
import { defineSchedule } from '../jobs/registry.ts';

defineSchedule({
  name: 'write-mark-sweep',
  kind: 'housekeeping.write-marks',
  description: 'Delete the write marks (read-your-writes with read replicas) older than ten minutes.',
  schedule: process.env.CAIRN_WRITE_MARK_SWEEP_CRON ?? '*/10 * * * *',
  setting: 'CAIRN_WRITE_MARK_SWEEP_CRON',
  scope: 'deployment',
  run: async (db) => {
    await sweepWriteMarks(db);
  },
});
