// An object's contact assignments go with it (NetBox's GenericRelation on ContactsMixin deletes them), change-logged
// as the cascade they are. Installed as a listener on every model that can have contacts, once all of them are
// defined: imported near the end of src/models.ts, after every family's models.
import { sql } from 'kysely';
import { addModelHook, requireModel } from '../core/registry.ts';
import { recordChanges, snapshot } from '../core/changelog.ts';
import { tenantOf } from '../core/access.ts';
import { displaysOf, type Row } from '../core/crud/serialize.ts';
import { contactObjectModels } from './contacts.ts';

for (const model of contactObjectModels()) {
  addModelHook(model.name, 'afterDelete', async ({ tx, ctx, rows }) => {
    const ids = rows.map((r) => String(r.id));
    const { rows: gone } = await sql<Row>`DELETE FROM contact_assignments WHERE object_type = ${model.name} AND object_id = ANY(${ids}::uuid[]) RETURNING *`.execute(tx);
    if (gone.length === 0) return;
    const assignment = requireModel('tenancy.contactassignment');
    const goneIds = gone.map((r) => String(r.id));
    await sql`DELETE FROM tagged_items WHERE object_type = ${assignment.name} AND object_id = ANY(${goneIds}::uuid[])`.execute(tx);
    const reprs = await displaysOf(tx, ctx, assignment, gone);
    await recordChanges(
      tx,
      ctx,
      gone.map((r) => ({ model: assignment, action: 'delete' as const, objectId: String(r.id), repr: reprs.get(String(r.id)) ?? String(r.id), before: snapshot(assignment, r), after: null, tenantId: tenantOf(r) })),
    );
  });
}
