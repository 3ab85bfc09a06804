// The catalogue of recurring jobs for /api/jobs/schedules/: what the domains declared to the job registry (the
// same declarations the host starts, so what it shows is what runs), and when each runs next.
import { Cron } from 'croner';

export { recurringJobs, type RecurringInfo as RecurringJob } from './registry.ts';

/** The next run of a pattern after `from`, or null with the reason when the pattern cannot run. */
export function nextRun(pattern: string, from: Date = new Date()): { next: string | null; error: string | null } {
  try {
    const next = new Cron(pattern, { paused: true }).nextRun(from);
    return { next: next ? next.toISOString() : null, error: null };
  } catch (err) {
    return { next: null, error: (err as Error).message };
  }
}
