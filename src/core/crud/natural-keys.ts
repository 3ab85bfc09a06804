// Relations written by their natural key, as filters already read them: `"status": "container"`, `"vrf": "blue"`
// (a slug, or a name where names are unique in the tenant). Ids still work. The key is kept as a marker by the
// input check (no database there) and turned into the id inside the write's transaction, in the caller's scope,
// before references, hooks and the database see it.
import { sql, type Kysely } from 'kysely';
import type { DB } from '../../db/types.ts';
import type { RequestContext } from '../context.ts';
import type { ModelDef } from '../registry.ts';
import { columnOf, findModel } from '../registry.ts';
import { ErrorCollector } from '../errors.ts';
import { scopeCondition } from '../access.ts';

/** A relation sent by slug or unique name, waiting for its id. */
export class NaturalKey {
  constructor(readonly text: string) {}
}

/** The column a model's rows are named by when written by key: its slug, else a name unique in the tenant. */
export function naturalKeyColumn(target: ModelDef): string | null {
  if (target.fields.slug?.kind === 'slug') return 'slug';
  const name = target.fields.name;
  if (name && name.unique && (name.kind === 'string' || name.kind === 'slug')) return 'name';
  return null;
}

/** Whether `text` may stand for a row of the model a relation field points at. */
export function acceptsNaturalKey(targetName: string | undefined, text: string): boolean {
  const target = targetName ? findModel(targetName) : undefined;
  return !!target && naturalKeyColumn(target) !== null && text.trim() !== '' && text.length <= 200;
}

/**
 * Replaces every NaturalKey of `inputs` with the id of the row it names, in the caller's scope (another tenant's
 * slug reads as one that does not exist): one query per relation field that used keys. Unknown keys: a 400
 * naming the field and the key.
 */
/** The part of a checked input (input.ts) this works on; named here so the input check need not be imported. */
interface KeyedInput {
  columns: Record<string, unknown>;
  values: Record<string, unknown>;
}

export async function resolveNaturalKeys(tx: Kysely<DB>, ctx: RequestContext, model: ModelDef, inputs: KeyedInput[]): Promise<void> {
  const errors = new ErrorCollector();
  for (const [key, field] of Object.entries(model.fields)) {
    if (field.kind !== 'fk') continue;
    const col = columnOf(key, field);
    const keyed = inputs.filter((i) => i.columns[col] instanceof NaturalKey);
    if (keyed.length === 0) continue;
    const target = findModel(field.target!)!;
    const by = naturalKeyColumn(target)!;
    const texts = [...new Set(keyed.map((i) => (i.columns[col] as NaturalKey).text))];
    const { rows } = await sql<{ id: string; k: string }>`SELECT r.id, r.${sql.ref(by)}::text AS k FROM ${sql.table(target.table)} r
      WHERE r.${sql.ref(by)}::text = ANY(${texts}::text[]) AND ${scopeCondition(ctx, target, 'r')}`.execute(tx);
    const ids = new Map(rows.map((r) => [r.k, r.id]));
    for (const input of keyed) {
      const text = (input.columns[col] as NaturalKey).text;
      const id = ids.get(text);
      if (!id) {
        errors.add(key, `No ${target.label} with ${by} "${text.slice(0, 60)}": send its id or an existing ${by}.`);
        continue;
      }
      input.columns[col] = id;
      input.values[key] = id;
    }
  }
  errors.throwIfAny();
}
