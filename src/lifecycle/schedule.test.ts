import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cron } from 'croner';
import { startHarness, type Harness } from '../../test/helpers/harness.ts';
import { scheduledRefresh } from './schedule.ts';
import { REFRESH_SCHEDULE, setRefreshRunner } from './service.ts';

let h: Harness;
const started: number[] = [];
beforeAll(async () => {
  h = await startHarness();
  // Record the hand-off instead of fetching the public catalog.
  setRefreshRunner(() => started.push(Date.now()));
});
afterAll(async () => {
  await h?.close();
});

describe('daily end-of-life refresh', () => {
  it('fires at 05:35 server time by default', () => {
    const next = new Cron(REFRESH_SCHEDULE).nextRun(new Date(2026, 10, 21, 12, 0, 0))!;
    expect([next.getHours(), next.getMinutes(), next.getDate()]).toEqual([5, 35, 22]);
  });

  it('does nothing while the feature is off, queues once when on, and never twice at once', async () => {
    expect(await scheduledRefresh(h.database.db)).toBe('off');
    expect(started).toHaveLength(0);
    const on = await h.as('admin').patch('/api/eol/settings/', { enabled: true });
    expect(on.statusCode, on.body).toBe(200);
    expect(await scheduledRefresh(h.database.db)).toBe('queued');
    expect(await scheduledRefresh(h.database.db)).toBe('busy');
    expect(started).toHaveLength(1);
  });
});

describe('nightly compliance evaluation', () => {
  it('runs at 06:15 server time by default, after the refresh', async () => {
    const { COMPLIANCE_SCHEDULE } = await import('../compliance/schedule.ts');
    const next = new Cron(COMPLIANCE_SCHEDULE).nextRun(new Date(2026, 10, 21, 12, 0, 0))!;
    expect([next.getHours(), next.getMinutes()]).toEqual([6, 15]);
  });
});
