// A field the registry declares non-nullable is NOT NULL in the database. List ordering relies on it: such a
// column is ordered without a NULLS clause (the same rows either way), so an index on it can serve the ordering;
// a column left nullable by a migration would put its NULLs on the other end of the list than the API promises.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import '../src/models.ts';
import { allModels, columnOf, isColumnField } from '../src/core/registry.ts';
import { openTestDatabase, type TestDatabase } from './helpers/database.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
}, 60_000);
afterAll(async () => {
  await database?.close();
});

it('every column the registry calls non-nullable is NOT NULL in the database', async () => {
  const { rows } = await sql<{ t: string; c: string; nullable: boolean }>`
    SELECT c.relname AS t, a.attname AS c, NOT a.attnotnull AS nullable
    FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped`.execute(database.db);
  const nullable = new Map(rows.map((r) => [`${r.t}.${r.c}`, r.nullable]));
  const checked: string[] = [];
  const wrong: string[] = [];
  for (const model of allModels()) {
    for (const [key, field] of Object.entries(model.fields)) {
      if (!isColumnField(field) || field.nullable) continue;
      const column = `${model.table}.${columnOf(key, field)}`;
      checked.push(column);
      // A failure names table.column: add NOT NULL in a migration, or mark the field nullable in the registry.
      if (nullable.get(column) !== false) wrong.push(column);
    }
    // The audit columns a list may be ordered by.
    for (const column of ['id', 'numid', ...(model.timestamps ? ['created', 'last_updated'] : [])]) {
      if (!nullable.has(`${model.table}.${column}`)) continue;
      checked.push(`${model.table}.${column}`);
      if (nullable.get(`${model.table}.${column}`) !== false) wrong.push(`${model.table}.${column}`);
    }
  }
  expect(wrong).toEqual([]);
  expect(checked.length).toBeGreaterThan(100);
});
