// What refers to an object: for each model with a foreign key or a many-to-many field to it, how many of the
// caller's rows do, and the list filter that shows them. NetBox's "Related objects" panel (a site's racks and
// devices, a VLAN's tagged and untagged interfaces).
import { sql, type Kysely } from 'kysely';
import { Type, type Static } from 'typebox';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import { allModels, columnOf, fieldLabel, type FieldDef, type ModelDef } from '../registry.ts';
import { modelAllows, scopeCondition } from '../access.ts';
import { notFound } from '../errors.ts';
import { wholeList, type ListEnvelope } from '../list-envelope.ts';
import { filterableField } from './list-query.ts';

export const RelatedCount = Type.Object(
  {
    model: Type.String({ description: 'The referring model, e.g. dcim.device.' }),
    label: Type.String({ description: 'What the rows are: "Devices", or "Regions · Parent" where the field is not named after this model.' }),
    field: Type.String({ description: 'The referring field; the list filter `<field>=<id>` selects the rows.' }),
    list: Type.String({ description: "The referring model's list path." }),
    count: Type.Integer({ minimum: 0, description: 'Rows the caller can see.' }),
  },
  { additionalProperties: false },
);
export type RelatedCount = Static<typeof RelatedCount>;

interface Reference {
  model: ModelDef;
  key: string;
  field: FieldDef;
}

// The registry is complete once the app is built; the model index asks for every model's references on each call.
let referencesCache: { models: number; byTarget: Map<string, Reference[]> } | null = null;

/** Every listed model's foreign keys and many-to-many fields to `model` that its list can filter by. */
export function referencesTo(model: ModelDef): Reference[] {
  const models = allModels();
  if (!referencesCache || referencesCache.models !== models.length) {
    const byTarget = new Map<string, Reference[]>();
    for (const m of models) {
      if (!m.operations.list) continue;
      for (const [key, field] of Object.entries(m.fields)) {
        if ((field.kind !== 'fk' && field.kind !== 'm2m') || !field.target || !filterableField(m, key)) continue;
        byTarget.set(field.target, [...(byTarget.get(field.target) ?? []), { model: m, key, field }]);
      }
    }
    referencesCache = { models: models.length, byTarget };
  }
  return referencesCache.byTarget.get(model.name) ?? [];
}

function labelOf(ref: Reference, target: ModelDef): string {
  const plural = ref.model.labelPlural.charAt(0).toUpperCase() + ref.model.labelPlural.slice(1);
  // `site` on a rack (or `device_type` on a template) names the model; `parent` on a region, or `primary_ip4` on a
  // device, says how it refers.
  return ref.key.replace(/_/g, '') === target.name.split('.')[1] ? plural : `${plural} · ${fieldLabel(ref.key, ref.field)}`;
}

/**
 * The caller's rows that refer to `id`, counted per referring model and field in one statement (each count is
 * served by the foreign key's index, or the join table's), in the order of the labels. An object the caller
 * cannot see is not found.
 */
export async function relatedCounts(db: Kysely<DB>, ctx: RequestContext, model: ModelDef, id: string): Promise<ListEnvelope<RelatedCount>> {
  const { rows: found } = await sql`SELECT 1 FROM ${sql.table(model.table)} t WHERE t.id = ${id} AND ${scopeCondition(ctx, model, 't')}`.execute(db);
  if (!found[0]) throw notFound();
  const refs = referencesTo(model)
    .filter((r) => modelAllows(ctx, r.model, 'view'))
    .map((r) => ({ ...r, label: labelOf(r, model) }))
    .sort((a, b) => a.label.localeCompare(b.label));
  if (!refs.length) return wholeList([]);
  const counts = sql.join(
    refs.map((r, i) => {
      const through = r.field.through;
      // A many-to-many field (an interface's tagged VLANs) is counted from its join table's index on the target.
      return through
        ? sql`SELECT ${i}::int AS i, count(DISTINCT t.id)::int AS n FROM ${sql.table(through.table)} j JOIN ${sql.table(r.model.table)} t ON t.id = ${sql.ref(`j.${through.from}`)}
            WHERE ${sql.ref(`j.${through.to}`)} = ${id} AND ${scopeCondition(ctx, r.model, 't')}`
        : sql`SELECT ${i}::int AS i, count(*)::int AS n FROM ${sql.table(r.model.table)} t
            WHERE ${sql.ref(`t.${columnOf(r.key, r.field)}`)} = ${id} AND ${scopeCondition(ctx, r.model, 't')}`;
    }),
    sql` UNION ALL `,
  );
  const { rows } = await sql<{ i: number; n: number }>`${counts}`.execute(db);
  const n = new Map(rows.map((r) => [r.i, r.n]));
  return wholeList(refs.map((r, i) => ({ model: r.model.name, label: r.label, field: r.key, list: r.model.path, count: n.get(i) ?? 0 })));
}
