// The write marks of read-your-writes are swept once a replica within the lag limit has surely replayed them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { sweepWriteMarks, WRITE_MARKS_KEPT_SECONDS } from './read-routing.ts';
import { REPLICA_DEFAULTS } from '../config.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

describe('write marks', () => {
  it('are kept twice the longest lag limit, then swept', async () => {
    expect(WRITE_MARKS_KEPT_SECONDS * 1000).toBeGreaterThanOrEqual(2 * REPLICA_DEFAULTS.maxLagLimitMs);
    const db = database.db;
    await sql`INSERT INTO write_marks (key, lsn, marked_at) VALUES
      ('recent', '0/16B3748', now() - interval '9 minutes'), ('old', '0/16B3700', now() - interval '11 minutes')`.execute(db);
    await sweepWriteMarks(db);
    const { rows } = await sql<{ key: string }>`SELECT key FROM write_marks ORDER BY key`.execute(db);
    expect(rows.map((r) => r.key)).toEqual(['recent']);
  });
});
