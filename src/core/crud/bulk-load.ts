// The write path for loads of many thousands of rows planned ahead (`cairn demo-data`, `cairn import netbox`):
// column-major data inserted with unnest, CHUNK rows per statement, ids and per-tenant numbers reserved in blocks
// so a plan can point rows at each other before they are written. Each chunk of objects is logged in the change
// log (whose listeners queue the webhooks) and indexed for search (by the tables' statement triggers, as the row
// counts are), with the same entries insertRows writes for a handful of rows, but set-wise: the insert returns
// only what the display texts are made of, and the change rows' snapshots are built by the database from the
// stored rows (recordCreatedObjects), so a chunk's rows never travel to JavaScript and back. Validate rules: the
// rules of a model that say how bulk loads honour them (`bulkLoadValidation`, core/registry.ts) are not run row by
// row, which is what keeps the cost at a fixed number of statements per chunk; every other rule runs for each row
// before it is written, as a single write would run it (row-rules.ts).
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import { allModels, type ModelDef } from '../registry.ts';
import { runRowRules } from './row-rules.ts';
import { uuidv7 } from '../ids.ts';
import { allocateNumids } from '../numids.ts';
import { TENANT_COLUMN } from '../access.ts';
import { customFieldDefaultsFor } from './insert-rows.ts';
import { briefColumns, displaysOf, type Row } from './serialize.ts';
import { columnTypesOf, recordCreatedObjects, type ColumnTypes } from '../changelog.ts';
import { arrayLiteral } from '../../db/array-literal.ts';

/** Column name, element type of the bound array, and a cast for array-typed columns (sent as array literals). */
export type LoadColumn = [name: string, pgType: string, cast?: string];

/** Rows per INSERT statement: big enough to amortise the round trip, small enough for the bind buffer. */
const CHUNK = 20_000;

/** A load's cap on a GIN index's pending list (kB), and from how many rows a write raises it. */
const PENDING_BATCH_KB = 65_536;
const PENDING_BATCH_FROM = 1_000;

export class BulkLoad {
  /** Rows written per table, objects and links. */
  readonly rows: Record<string, number> = {};
  private readonly tenantId: string;
  /** Column types of the models' tables, read once per load for the change log's snapshots. */
  private readonly columnTypes = new Map<string, ColumnTypes>();

  constructor(
    private readonly tx: Kysely<DB>,
    private readonly ctx: RequestContext,
    private readonly progress: (line: string) => void = () => {},
  ) {
    if (!ctx.tenantId) throw new Error('A bulk load needs an active tenant.');
    this.tenantId = ctx.tenantId;
  }

  /** Ids and numids for `count` new objects of `model`, to be written by insert(). */
  async identities(model: ModelDef, count: number): Promise<{ ids: string[]; numids: number[] }> {
    const first = count ? await allocateNumids(this.tx, this.tenantId, model.table, count) : 0;
    const ids = new Array<string>(count);
    const numids = new Array<number>(count);
    for (let i = 0; i < count; i++) {
      ids[i] = uuidv7();
      numids[i] = first + i;
    }
    return { ids, numids };
  }

  /**
   * Writes objects of a tenant-scoped model: `columns` with `data` column-major (the first two are `id` and
   * `numid` from identities()), `consts` the same for every row. The load's tenant (refused from the caller) and,
   * when no `custom_fields` column is given, the model's custom-field defaults are added; every object gets its
   * change-log entry.
   */
  async insert(model: ModelDef, columns: LoadColumn[], data: unknown[][], consts: Record<string, RawBuilder<unknown>> = {}): Promise<void> {
    if (!model.tenantScoped) throw new Error(`${model.name} is not tenant-scoped: a bulk load writes one tenant's objects.`);
    if (columns[0]?.[0] !== 'id' || columns[1]?.[0] !== 'numid') throw new Error(`${model.name}: a bulk load's first columns are id and numid (from identities()).`);
    // The tenant is the load's, never the caller's to set.
    if (columns.some(([n]) => n === 'tenant_id') || 'tenant_id' in consts) throw new Error(`${model.name}: a bulk load sets tenant_id itself.`);
    const extra: Record<string, RawBuilder<unknown>> = { ...consts, tenant_id: sql`${this.tenantId}::uuid` };
    const hasCustomFields = Object.values(model.fields).some((f) => f.kind === 'custom_fields');
    if (hasCustomFields && !columns.some(([n]) => n === 'custom_fields') && !('custom_fields' in consts)) {
      extra.custom_fields = sql`${JSON.stringify(await customFieldDefaultsFor(this.tx, this.tenantId, model.name))}::jsonb`;
    }
    await runRowRules(this.tx, this.ctx, model, columns.map(([name]) => name), data[0]?.length ?? 0, (i, c) => data[c]![i]);
    const types = await this.columnTypesOf(model.table);
    // What the display texts are made of comes back (the id, number, display columns and display parent); the
    // snapshots are the database's to build.
    await this.write(model.table, columns, data, extra, { returning: [...new Set(['numid', ...briefColumns(model)])], created: async (created) => {
      const reprs = await displaysOf(this.tx, this.ctx, model, created);
      const ids = created.map((r) => String(r.id));
      await recordCreatedObjects(this.tx, this.ctx, model, types, { ids, reprs: ids.map((id) => reprs.get(id)!) });
    } });
  }

  /**
   * Writes rows of a table that holds no objects of its own: many-to-many links and cable ends, which belong to
   * the objects they join. Refuses a model's table, whose rows must go through insert(). `skipExisting`: rows that
   * repeat an existing key are left as they are (a load run again); `inTenant`: the table has a tenant column, set
   * to the load's tenant.
   */
  async link(table: string, columns: LoadColumn[], data: unknown[][], consts: Record<string, RawBuilder<unknown>> = {}, opts: { skipExisting?: boolean; inTenant?: boolean } = {}): Promise<void> {
    if (allModels().some((m) => m.table === table)) throw new Error(`${table} holds objects: write them with insert(), which logs them.`);
    if (columns.some(([n]) => n === TENANT_COLUMN) || TENANT_COLUMN in consts) throw new Error(`${table}: a bulk load sets the tenant itself (inTenant).`);
    const extra = opts.inTenant ? { ...consts, [TENANT_COLUMN]: sql`${this.tenantId}::uuid` } : consts;
    await this.write(table, columns, data, extra, null, Boolean(opts.skipExisting));
  }

  private async columnTypesOf(table: string): Promise<ColumnTypes> {
    let types = this.columnTypes.get(table);
    if (!types) this.columnTypes.set(table, (types = await columnTypesOf(this.tx, table)));
    return types;
  }

  /** Tags `objectIds[i]` (objects of `model` in the load's tenant) with `tagIds[i]`; existing tags stay. */
  async tag(model: ModelDef, objectIds: string[], tagIds: string[]): Promise<void> {
    await this.link('tagged_items', [['tag_id', 'uuid'], ['object_id', 'uuid']], [tagIds, objectIds], { object_type: sql`${model.name}` }, { skipExisting: true, inTenant: true });
  }

  private async write(
    table: string,
    columns: LoadColumn[],
    data: unknown[][],
    consts: Record<string, RawBuilder<unknown>>,
    log: { returning: string[]; created: (rows: Row[]) => Promise<void> } | null,
    skipExisting = false,
  ): Promise<void> {
    const count = data[0]?.length ?? 0;
    const constNames = Object.keys(consts);
    const names = [...columns.map(([n]) => n), ...constNames];
    // A chunk's arrays go as array literals in text (read by the database as the column's array type), encoded
    // ahead: the next chunk is encoded while the database writes this one, instead of by the driver after it.
    const encode = (start: number): RawBuilder<unknown>[] => {
      const end = Math.min(count, start + CHUNK);
      return columns.map(([, type], i) => sql`${arrayLiteral(data[i]!.slice(start, end))}::text::${sql.raw(type)}[]`);
    };
    let arrays = count ? encode(0) : [];
    // Objects are indexed for search as they are written (GIN trigram indexes): merged in big batches, once at the
    // end, rather than every 256 kB of pending entries (PENDING_LIST_KB), 7-9 µs less for each entry.
    const pending = log && count > PENDING_BATCH_FROM ? await this.raisePendingLists() : null;
    for (let start = 0; start < count; start += CHUNK) {
      const end = Math.min(count, start + CHUNK);
      const selected = columns.map(([, , cast], i) => (cast ? sql`${sql.ref(`u.c${i}`)}::${sql.raw(cast)}` : sql.ref(`u.c${i}`)));
      const written = sql<Row>`INSERT INTO ${sql.table(table)} (${sql.join(names.map((n) => sql.ref(n)))})
        SELECT ${sql.join([...selected, ...constNames.map((n) => consts[n]!)])}
        FROM unnest(${sql.join(arrays)}) AS u(${sql.join(columns.map((_c, i) => sql.ref(`c${i}`)))})
        ${skipExisting ? sql`ON CONFLICT DO NOTHING` : sql``}
        ${log ? sql`RETURNING ${sql.join(log.returning.map((c) => sql.ref(c)))}` : sql``}`.execute(this.tx);
      // Its failure is met where it is awaited below; until then it must not count as unhandled.
      written.catch(() => undefined);
      if (end < count) {
        // Once the statement is on its way (the driver sends it on a later turn of the event loop).
        await new Promise<void>((resolve) => setImmediate(resolve));
        arrays = encode(end);
      }
      const { rows } = await written;
      if (log) await log.created(rows);
      // A big table is minutes of work at 50,000 devices: say how far it got, not only when it is done.
      if (end < count) this.progress(`    ${table}: ${end.toLocaleString('en-US')} of ${count.toLocaleString('en-US')} rows`);
    }
    if (pending !== null) await this.mergePendingLists(pending);
    this.rows[table] = (this.rows[table] ?? 0) + count;
  }

  /** Raises this transaction's GIN pending-list cap; returns the cap it had. */
  private async raisePendingLists(): Promise<string> {
    const { rows } = await sql<{ previous: string }>`SELECT s.previous, set_config('gin_pending_list_limit', ${String(PENDING_BATCH_KB)}, true)
      FROM (SELECT current_setting('gin_pending_list_limit') AS previous) s`.execute(this.tx);
    return rows[0]!.previous;
  }

  /**
   * Merges what the load left pending in the schema's GIN indexes that keep a pending list (the search index's
   * trigrams), so no later writer's insert pays for merging it and no search reads it, and restores the cap. Only
   * indexes this role owns (merging is the owner's, as vacuuming is): an index someone else made keeps its list.
   */
  private async mergePendingLists(previous: string): Promise<void> {
    await sql`SELECT set_config('gin_pending_list_limit', ${previous}, true),
        (SELECT count(gin_clean_pending_list(c.oid)) FROM pg_class c JOIN pg_am am ON am.oid = c.relam
          WHERE am.amname = 'gin' AND c.relnamespace = current_schema()::regnamespace AND pg_has_role(c.relowner, 'USAGE')
            AND NOT coalesce('fastupdate=off' = ANY(c.reloptions), false))`.execute(this.tx);
  }
}
