// Every start migrates; on a database that already holds exactly the shipped migrations that costs a handful of
// statements, and anything else (a migration the code does not ship) still goes to Kysely's migrator and fails.
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import '../models.ts';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { MigrationError, migrateToLatest, migrationState } from './migrator.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

it('a database holding every shipped migration: nothing applied, no catalog listing', async () => {
  const before = database.queryCount();
  expect(await migrateToLatest(database.db)).toEqual([]);
  // The state (2 statements) and the derived objects' checks: 4. Through Kysely's migrator it was 10, two of them
  // listings of every table's columns.
  expect(database.queryCount() - before).toBeLessThanOrEqual(6);
  expect((await migrationState(database.db)).dbBehindCode).toEqual([]);
});

it('a database holding a migration this code does not ship is refused, naming it', async () => {
  await sql`INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_from_a_newer_release', now()::text)`.execute(database.db);
  try {
    const run = migrateToLatest(database.db);
    await expect(run).rejects.toThrow(MigrationError);
    await expect(run).rejects.toThrow(/9999_from_a_newer_release/);
  } finally {
    await sql`DELETE FROM kysely_migration WHERE name = '9999_from_a_newer_release'`.execute(database.db);
  }
});
