// Every start migrates; on a database that already holds exactly the shipped migrations that costs a handful of
// statements, and anything else (a migration the code does not ship) still goes to Kysely's migrator and fails.
import { sql, type Migration } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import '../models.ts';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { MigrationError, MigrationLockTimeout, migrateIfReadable, migrateToLatest, migrationState, NotReadableByPrevious } from './migrator.ts';
import { migrations } from './migrations/index.ts';

let database: TestDatabase;
const onServer = () => Boolean(process.env.TEST_DATABASE_URL);
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

// An upgrade that keeps the site readable migrates under the old release's web: only when what it leaves is still
// readable by that code, decided on the catalog inside the migrations' one transaction.
describe('migrating only if the code before can still read the result', () => {
  const applied = async () => (await sql<{ name: string }>`SELECT name FROM kysely_migration WHERE name LIKE '9999%'`.execute(database.db)).rows.map((r) => r.name);
  const undo = async () => {
    await sql`DROP TABLE IF EXISTS compat_probe, compat_added`.execute(database.db);
    await sql`DROP FUNCTION IF EXISTS compat_fn(int)`.execute(database.db);
    await sql`DELETE FROM kysely_migration WHERE name LIKE '9999%'`.execute(database.db);
  };
  beforeEach(async () => {
    await undo();
    await sql`CREATE TABLE compat_probe (id int PRIMARY KEY, name text NOT NULL, note text)`.execute(database.db);
    await sql`CREATE FUNCTION compat_fn(x int) RETURNS int LANGUAGE sql AS 'SELECT x'`.execute(database.db);
  });
  afterAll(undo);
  const up = (statement: string): Migration => ({ up: async (db) => void (await sql.raw(statement).execute(db)) });
  const shipping = (extra: Record<string, Migration>) => ({ ...migrations, ...extra });

  it('adding tables, columns, indexes and NOT NULL applies every pending migration', async () => {
    const names = await migrateIfReadable(database.db, shipping({
      '9999_a': up('CREATE TABLE compat_added (id int)'),
      '9999_b': up("ALTER TABLE compat_probe ADD COLUMN extra text NOT NULL DEFAULT ''; CREATE INDEX ON compat_probe (name)"),
      '9999_c': up('ALTER TABLE compat_probe ALTER COLUMN note SET NOT NULL'),
    }));
    expect(names).toEqual(['9999_a', '9999_b', '9999_c']);
    expect(await applied()).toEqual(['9999_a', '9999_b', '9999_c']);
  });

  it.each([
    ['a dropped column', 'ALTER TABLE compat_probe DROP COLUMN note', 'column compat_probe.note is gone'],
    ['a renamed column', 'ALTER TABLE compat_probe RENAME COLUMN name TO label', 'column compat_probe.name is gone'],
    ['a retyped column', 'ALTER TABLE compat_probe ALTER COLUMN id TYPE bigint', 'column compat_probe.id was integer not null and is bigint not null'],
    ['a column that may now be null', 'ALTER TABLE compat_probe ALTER COLUMN name DROP NOT NULL', 'column compat_probe.name was text not null and is text'],
    ['a dropped table', 'DROP TABLE compat_probe', 'table compat_probe is gone'],
    ['a table that became a view', 'ALTER TABLE compat_probe RENAME TO compat_old; CREATE VIEW compat_probe AS SELECT * FROM compat_old', 'compat_probe was a table and is a view'],
    ['a dropped function', 'DROP FUNCTION compat_fn(int)', 'function compat_fn(x integer) is gone'],
  ])('%s in the last of two migrations rolls both back, naming it', async (_what, statement, said) => {
    const run = migrateIfReadable(database.db, shipping({ '9999_a': up('CREATE TABLE compat_added (id int)'), '9999_b': up(statement) }));
    await expect(run).rejects.toThrow(NotReadableByPrevious);
    await expect(run).rejects.toThrow(said);
    expect(await applied()).toEqual([]);
    expect((await sql<{ t: string | null }>`SELECT to_regclass('compat_added')::text AS t`.execute(database.db)).rows[0]!.t).toBeNull();
    expect((await sql<{ t: string | null }>`SELECT to_regclass('compat_probe')::text AS t`.execute(database.db)).rows[0]!.t).toBe('compat_probe');
  });

  // A second session needs a server (the embedded database has one connection).
  it.runIf(onServer())('a read that holds a table the migration alters: it waits a bounded time, then nothing is applied', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let reading!: () => void;
    const started = new Promise<void>((r) => (reading = r));
    const reader = database.db.transaction().execute(async (trx) => {
      await sql`SELECT count(*) FROM compat_probe`.execute(trx);
      reading();
      await held;
    });
    try {
      await started;
      const run = migrateIfReadable(database.db, shipping({ '9999_a': up('CREATE TABLE compat_added (id int)'), '9999_b': up('ALTER TABLE compat_probe ADD COLUMN later text') }), 300);
      await expect(run).rejects.toThrow(MigrationLockTimeout);
      expect(await applied()).toEqual([]);
    } finally {
      release();
      await reader;
    }
  });
});
