// Functions that write values as the API's JSON writes them (JSON.stringify of what the pg driver reads), so a list
// page's JSON can be written by PostgreSQL (core/crud/object-json.ts) byte for byte as the server would write it.
// Where PostgreSQL cannot be sure of the same text (a number JavaScript would round or write with an exponent, an
// object with integer-like keys, which JavaScript puts first), they raise CJ001 and the server writes that page
// itself.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // A timestamptz as Date.prototype.toISOString writes the Date the driver makes of it (text: row_to_json quotes
  // it): to the millisecond, what is below it dropped (the driver's 1000 * parseFloat('0.<digits>') gives the whole
  // milliseconds exactly, all thousand of them). Stored times have four-digit years (the input check writes them
  // so). Written with text and arithmetic rather than to_char: a third of the time, and inlined (one expression).
  await sql`CREATE OR REPLACE FUNCTION cairn_json_time(v timestamptz) RETURNS text LANGUAGE sql STABLE PARALLEL SAFE AS $f$
    SELECT replace(left((v AT TIME ZONE 'UTC')::text, 19), ' ', 'T') || '.' ||
      lpad(((date_part('microseconds', v)::int % 1000000) / 1000)::text, 3, '0') || 'Z'
  $f$`.execute(db);
  // A number as JSON.stringify(Number(text)) writes it: PostgreSQL's digits without trailing zeros, when there are
  // at most 15 significant ones (a double keeps them exactly) and JavaScript would not switch to an exponent.
  await sql`CREATE OR REPLACE FUNCTION cairn_json_number(v numeric) RETURNS json LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
    DECLARE t numeric := trim_scale(v);
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF t = 0 THEN RETURN '0'::json; END IF;
      IF abs(t) >= 1e15 OR abs(t) < 0.000001 OR length(ltrim(translate(abs(t)::text, '.', ''), '0')) > 15 THEN
        RAISE EXCEPTION USING ERRCODE = 'CJ001', MESSAGE = 'a number JavaScript writes otherwise';
      END IF;
      RETURN t::text::json;
    END
  $f$`.execute(db);
  // A double as JSON.stringify of the driver's parseFloat of its text: the same shortest digits, where neither side
  // writes an exponent (PostgreSQL from 1e15 and below 1e-4, JavaScript from 1e21 and below 1e-6).
  await sql`CREATE OR REPLACE FUNCTION cairn_json_number(v float8) RETURNS json LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
    BEGIN
      IF v IS NULL THEN RETURN NULL; END IF;
      IF v = 0 THEN RETURN '0'::json; END IF;
      IF NOT (abs(v) >= 0.0001 AND abs(v) < 1e15) THEN
        RAISE EXCEPTION USING ERRCODE = 'CJ001', MESSAGE = 'a number JavaScript writes otherwise';
      END IF;
      RETURN v::text::json;
    END
  $f$`.execute(db);
  // A jsonb value as JSON.stringify(JSON.parse(its text)) writes it: no spaces, numbers as above, keys in jsonb's
  // order (JavaScript's too, unless a key looks like an array index).
  await sql`CREATE OR REPLACE FUNCTION cairn_json_compact(v jsonb) RETURNS json LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $f$
    BEGIN
      CASE jsonb_typeof(v)
        WHEN 'object' THEN
          IF v = '{}'::jsonb THEN RETURN '{}'::json; END IF;
          IF EXISTS (SELECT 1 FROM jsonb_object_keys(v) k WHERE k ~ '^(0|[1-9][0-9]{0,8})$') THEN
            RAISE EXCEPTION USING ERRCODE = 'CJ001', MESSAGE = 'an object key JavaScript puts first';
          END IF;
          RETURN ('{' || (SELECT string_agg(to_json(e.key)::text || ':' || cairn_json_compact(e.value)::text, ',' ORDER BY e.n)
            FROM jsonb_each(v) WITH ORDINALITY e(key, value, n)) || '}')::json;
        WHEN 'array' THEN
          RETURN ('[' || coalesce((SELECT string_agg(cairn_json_compact(e.value)::text, ',' ORDER BY e.n)
            FROM jsonb_array_elements(v) WITH ORDINALITY e(value, n)), '') || ']')::json;
        WHEN 'number' THEN RETURN cairn_json_number(v::numeric);
        ELSE RETURN v::json;
      END CASE;
    END
  $f$`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`DROP FUNCTION IF EXISTS cairn_json_compact(jsonb)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cairn_json_number(float8)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cairn_json_number(numeric)`.execute(db);
  await sql`DROP FUNCTION IF EXISTS cairn_json_time(timestamptz)`.execute(db);
}
