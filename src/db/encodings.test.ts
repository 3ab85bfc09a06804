// Two texts the database and the code must agree on, checked on the database itself: an array literal the bulk
// load encodes (read back element for element) and the natural-order key migration 0051 rewrote (the same key as
// migration 0024's formula for every name, so stored keys stay valid).
import { sql } from 'kysely';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openTestDatabase, type TestDatabase } from '../../test/helpers/database.ts';
import { arrayLiteral } from './array-literal.ts';

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(async () => {
  await database?.close();
});

it('an array literal reads back as the elements it was made of', async () => {
  const texts = ['plain', '', ' spaced ', 'NULL', null, 'a,b', '{braces}', 'quote " inside', 'back\\slash', 'both \\" and', 'ünïcødé ✓', 'line\nbreak', '{"json": [1, "x"]}'];
  const { rows } = await sql<{ v: Array<string | null> }>`SELECT ${arrayLiteral(texts)}::text::text[] AS v`.execute(database.db);
  expect(rows[0]!.v).toEqual(texts);
  const { rows: typed } = await sql<{ n: number[]; b: boolean[]; j: unknown[] }>`SELECT ${arrayLiteral([1, -2, null])}::text::int4[] AS n,
    ${arrayLiteral([true, false])}::text::bool[] AS b, ${arrayLiteral([JSON.stringify({ a: 'x"y' }), '[]'])}::text::jsonb[] AS j`.execute(database.db);
  expect(typed[0]).toEqual({ n: [1, -2, null], b: [true, false], j: [{ a: 'x"y' }, []] });
});

it('the natural-order key is the one migration 0024 wrote, for every kind of name', async () => {
  const names = ['', 'eth0', 'Ethernet1/2/3', '007', 'a007b', 'x123456789012345678901234y', '0000000000000000000001234', '12345678901234567890',
    '123456789012345678901', 'ünï9cödé10', '1', 'a1b22c333', '1.2.3.4', '  5 ', '٣4', 'x²3', 'line\n2'];
  // And random ones over digits, letters, punctuation and non-ASCII.
  const alphabet = '09az/._-: ()[]ü²٣\\\'"\t#';
  let seed = 7;
  for (let i = 0; i < 500; i++) {
    let name = '';
    for (let j = 0; j < 1 + (i % 30); j++) {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      name += alphabet[seed % alphabet.length]!.repeat(1 + (seed % 3));
    }
    names.push(name);
  }
  const { rows } = await sql<{ name: string; key: string; old: string }>`SELECT n AS name, cairn_natural_key(n) AS key,
      (SELECT coalesce(string_agg(CASE WHEN x.m[1] ~ '^[0-9]' THEN lpad(x.m[1], 20, '0') ELSE x.m[1] END, '' ORDER BY x.n), '')
        FROM regexp_matches(n, '([0-9]+|[^0-9]+)', 'g') WITH ORDINALITY AS x(m, n)) AS old
    FROM unnest(${arrayLiteral(names)}::text::text[]) AS n`.execute(database.db);
  expect(rows).toHaveLength(names.length);
  expect(rows.filter((r) => r.key !== r.old)).toEqual([]);
  expect(rows.find((r) => r.name === 'Ethernet1/2/3')!.key).toBe(`Ethernet${'1'.padStart(20, '0')}/${'2'.padStart(20, '0')}/${'3'.padStart(20, '0')}`);
});
