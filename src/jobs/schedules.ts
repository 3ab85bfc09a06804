// The catalogue of recurring jobs for /api/jobs/schedules/: what runs on its own, when, and when next. The
// schedules themselves start in src/monitoring/process.ts (where background work runs); this list only reads
// the same patterns, so what it shows is what runs.
import { Cron } from 'croner';
import { REFRESH_SCHEDULE } from '../lifecycle/service.ts';
import { COMPLIANCE_SCHEDULE } from '../compliance/schedule.ts';
import { monitoringSettings } from '../monitoring/worker.ts';
import { SEARCH_REBUILD_SCHEDULE } from '../search/schedule.ts';
import { UPGRADE_CHECK_SCHEDULE } from '../upgrade/schedule.ts';

export interface RecurringJob {
  name: string;
  kind: string;
  description: string;
  /** Cron pattern (croner syntax, server time zone; six fields when seconds matter). */
  schedule: string;
  /** The environment variable that overrides the pattern. */
  setting: string;
  /** Deployment-wide work every tenant shares; tenant-level callers still see that it exists. */
  scope: 'deployment' | 'tenant';
}

export function recurringJobs(): RecurringJob[] {
  return [
    { name: 'eol-refresh', kind: 'eol.refresh', description: 'Refresh end-of-life data from the selected catalog sources (when the feature is on).', schedule: REFRESH_SCHEDULE, setting: 'CAIRN_EOL_REFRESH_CRON', scope: 'deployment' },
    { name: 'compliance', kind: 'compliance.evaluate', description: 'Evaluate every compliance rule of every tenant.', schedule: COMPLIANCE_SCHEDULE, setting: 'CAIRN_COMPLIANCE_CRON', scope: 'deployment' },
    { name: 'monitoring', kind: 'monitoring.run-checks', description: 'Dispatch due service checks to the monitoring queue.', schedule: monitoringSettings().tick, setting: 'CAIRN_CHECK_TICK', scope: 'deployment' },
    { name: 'search-rebuild', kind: 'search.rebuild', description: 'Rebuild the search index of every tenant.', schedule: SEARCH_REBUILD_SCHEDULE, setting: 'CAIRN_SEARCH_REBUILD_CRON', scope: 'deployment' },
    { name: 'upgrade-check', kind: 'upgrade.check', description: 'Check the release feed (unless airgapped) and start an automatic update when enabled.', schedule: UPGRADE_CHECK_SCHEDULE, setting: 'CAIRN_UPGRADE_CHECK_CRON', scope: 'deployment' },
  ];
}

/** The next run of a pattern after `from`, or null with the reason when the pattern cannot run. */
export function nextRun(pattern: string, from: Date = new Date()): { next: string | null; error: string | null } {
  try {
    const next = new Cron(pattern, { paused: true }).nextRun(from);
    return { next: next ? next.toISOString() : null, error: null };
  } catch (err) {
    return { next: null, error: (err as Error).message };
  }
}
