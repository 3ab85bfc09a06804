// Schedules run once per planned time across processes: every process's timer fires, one claim lands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { Cron } from 'croner';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { openPostgres, type Database } from '../db/database.ts';
import { claimScheduledRun, plannedRun } from './schedule-claims.ts';

let database: TestDatabase;
/** On PostgreSQL, two more pools on the same database: three processes' worth of connections. */
const others: Database[] = [];
beforeAll(async () => {
  database = await openTestDatabase();
  if (process.env.TEST_DATABASE_URL) {
    const { rows } = await sql<{ name: string }>`SELECT current_database() AS name`.execute(database.db);
    const url = new URL(process.env.TEST_DATABASE_URL);
    url.pathname = `/${rows[0]!.name}`;
    for (let i = 0; i < 2; i++) others.push(await openPostgres(url.toString(), 1));
  }
}, 60_000);
afterAll(async () => {
  for (const o of others) await o.close();
  await database?.close();
});

describe('scheduled runs across processes', () => {
  it('every process computes the same planned time for a run, whatever its own delay', () => {
    const everyTwoSeconds = new Cron('*/2 * * * * *', { paused: true });
    expect(plannedRun(everyTwoSeconds, new Date(2026, 0, 1, 0, 0, 4, 0))).toEqual(new Date(2026, 0, 1, 0, 0, 4, 0));
    expect(plannedRun(everyTwoSeconds, new Date(2026, 0, 1, 0, 0, 5, 900))).toEqual(new Date(2026, 0, 1, 0, 0, 4, 0));
    const nightly = new Cron('15 6 * * *', { paused: true });
    expect(plannedRun(nightly, new Date(2026, 0, 1, 6, 15, 0, 30))).toEqual(new Date(2026, 0, 1, 6, 15, 0, 0));
    expect(plannedRun(nightly, new Date(2026, 0, 1, 6, 17, 12, 0))).toEqual(new Date(2026, 0, 1, 6, 15, 0, 0));
  });

  it('three processes claiming one planned run at once: exactly one runs it; the next planned run is claimable again', async () => {
    const dbs = [database, ...others].map((d) => d.db);
    // A recent run: claims older than 30 days are pruned.
    const planned = new Date(Math.floor(Date.now() / 1000) * 1000 - 60_000);
    // Three claimants (on the embedded database, three callers of its one session).
    const claimants = [0, 1, 2].map((i) => dbs[i % dbs.length]!);
    const won = await Promise.all(claimants.map((db) => claimScheduledRun(db, 'compliance', planned)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await claimScheduledRun(database.db, 'compliance', planned)).toBe(false);
    // Another schedule's run at the same time, and the same schedule's next run, are runs of their own.
    expect(await claimScheduledRun(database.db, 'search-rebuild', planned)).toBe(true);
    expect(await claimScheduledRun(database.db, 'compliance', new Date(planned.getTime() + 86_400_000))).toBe(true);
  });

  it('keeps claims for 30 days, not for ever', async () => {
    const old = new Date(Date.now() - 40 * 86_400_000);
    expect(await claimScheduledRun(database.db, 'eol-refresh', old)).toBe(true);
    expect(await claimScheduledRun(database.db, 'eol-refresh', new Date())).toBe(true);
    const { rows } = await sql<{ n: number }>`SELECT count(*)::int AS n FROM schedule_claims WHERE name = 'eol-refresh'`.execute(database.db);
    expect(rows[0]!.n).toBe(1);
  });
});
