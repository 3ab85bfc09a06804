// The write path for values the server derives for rows that exist, many rows at once and each its own values
// (the facts an end-of-life refresh copies from the catalog onto every mapping): the rows locked and read in the
// caller's scope, one UPDATE for all of them (values typed by the table's own columns, as insertRows types its
// rows), and their change-log entries in one INSERT, whose listeners queue the webhooks; the search index follows
// by the tables' triggers. In the caller's transaction. As with insertRows, no input check runs: the values are the
// server's own, and the cost stays a fixed number of statements for any number of rows. A caller whose values come
// from elsewhere (the NetBox import) asks for `rowRules`: the model's rules that do not say how bulk writes honour
// them run for each row (row-rules.ts), as a single update would run them.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import { systemContext, type RequestContext } from '../context.ts';
import type { ModelDef } from '../registry.ts';
import { changeTenantOf, scopeCondition } from '../access.ts';
import { recordChanges, snapshot } from '../changelog.ts';
import { recordsetJson } from '../records.ts';
import { displaysOf, type Row } from './serialize.ts';
import { RowRefused, runRowRules } from './row-rules.ts';

export interface ServerChange {
  id: string;
  /** Column → value; every change of one call sets the same columns. */
  columns: Record<string, unknown>;
}

/**
 * Applies `changes` to rows of `model` in the caller's scope; returns the rows updated, as stored (others are
 * skipped). Columns only: tags and other relations are not the server's to set here, so the entries carry none.
 */
export async function updateRows(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, changes: readonly ServerChange[], opts: { rowRules?: boolean } = {}): Promise<Row[]> {
  if (changes.length === 0) return [];
  const names = Object.keys(changes[0]!.columns);
  if (names.length === 0 || changes.some((c) => Object.keys(c.columns).length !== names.length || names.some((n) => !(n in c.columns)))) {
    throw new Error(`${model.name}: every change of one updateRows call sets the same columns, at least one`);
  }
  const table = sql.table(model.table);
  const ids = changes.map((c) => c.id);
  // Locked in id order, as bulk updates lock, so two writers of the same rows cannot deadlock.
  const { rows: before } = await sql<Row>`SELECT * FROM ${table} t WHERE t.id = ANY(${ids}::uuid[]) AND ${scopeCondition(ctx, model, 't')}
    ORDER BY t.id FOR UPDATE`.execute(tx);
  if (before.length === 0) return [];
  if (opts.rowRules) {
    const stored = new Map(before.map((r) => [String(r.id), r]));
    // (A change of a row outside the caller's scope is skipped below: it is not checked either.)
    const kept = changes.flatMap((c, i) => (stored.has(c.id) ? [{ change: c, i }] : []));
    await runRowRules(tx, ctx, model, names, kept.length, (k, c) => kept[k]!.change.columns[names[c]!], (k) => stored.get(kept[k]!.change.id)!).catch((err: unknown) => {
      // Refusals name the row by its place among the changes given.
      if (err instanceof RowRefused) throw new RowRefused(err.model, kept[err.row]!.i, err.errors);
      throw err;
    });
  }
  const sets = names.map((n) => sql`${sql.ref(n)} = ${sql.ref(`x.${n}`)}`);
  if (model.timestamps) sets.push(sql`last_updated = now()`);
  const records = changes.map((c) => ({ ...c.columns, id: c.id }));
  const { rows: after } = await sql<Row>`UPDATE ${table} t SET ${sql.join(sets)}
    FROM jsonb_populate_recordset(NULL::${table}, ${recordsetJson(records)}::jsonb) AS x
    WHERE t.id = x.id AND t.id = ANY(${before.map((r) => String(r.id))}::uuid[]) RETURNING t.*`.execute(tx);
  const beforeById = new Map(before.map((r) => [String(r.id), r]));
  const reprs = await displaysOf(tx, ctx, model, after);
  await recordChanges(
    tx,
    ctx,
    after.map((r) => {
      const id = String(r.id);
      return { model, action: 'update' as const, objectId: id, repr: reprs.get(id)!, before: snapshot(model, beforeById.get(id)!), after: snapshot(model, r), tenantId: changeTenantOf(model, r, ctx) };
    }),
  );
  return after;
}

/**
 * updateRows for background work over every tenant's rows (a catalog refresh): each row's tenant is read from the
 * row itself, and each tenant's rows are written as that tenant's system, fenced to it. Returns the rows updated.
 */
export async function updateRowsOfEveryTenant(tx: Kysely<DB>, via: string, model: ModelDef, changes: readonly ServerChange[]): Promise<Row[]> {
  if (changes.length === 0) return [];
  const { rows } = await sql<{ id: string; tenant_id: string | null }>`SELECT t.id, t.tenant_id FROM ${sql.table(model.table)} t
    WHERE t.id = ANY(${changes.map((c) => c.id)}::uuid[])`.execute(tx);
  const tenantOf = new Map(rows.map((r) => [String(r.id), r.tenant_id]));
  const byTenant = new Map<string | null, ServerChange[]>();
  for (const change of changes) {
    if (!tenantOf.has(change.id)) continue;
    const tenant = tenantOf.get(change.id)!;
    const list = byTenant.get(tenant);
    if (list) list.push(change);
    else byTenant.set(tenant, [change]);
  }
  const out: Row[] = [];
  for (const [tenant, list] of byTenant) out.push(...(await updateRows(tx, systemContext(tenant, via), model, list)));
  return out;
}
