// Keeps the search index current on every write through the registry: creates, single updates and bulk
// updates (one statement for the whole batch). Imported last by src/models.ts, once every model exists.
import { addModelHook } from '../core/registry.ts';
import { indexChildrenOf, parentsWithChildren, reindexRows } from './indexer.ts';
import { searchableModels, type SearchableModel } from './fields.ts';

/** Whether an update touched anything the index holds; most edits (status, relations) do not. */
function touchesIndex(s: SearchableModel, before: Record<string, unknown>, row: Record<string, unknown>): boolean {
  return s.columns.some((c) => JSON.stringify(before[c]) !== JSON.stringify(row[c]));
}

for (const s of searchableModels()) {
  addModelHook(s.model.name, 'afterCreate', async ({ tx, model, row }) => {
    await reindexRows(tx, model, [row.id as string]);
  });
  addModelHook(s.model.name, 'afterUpdate', async ({ tx, model, before, row, inBulk }) => {
    // Bulk updates are indexed once for every row in afterUpdateMany.
    if (inBulk || !touchesIndex(s, before, row)) return;
    await reindexRows(tx, model, [row.id as string]);
  });
  addModelHook(s.model.name, 'afterUpdateMany', async ({ tx, model, rows }) => {
    const ids = rows.filter((r) => touchesIndex(s, r.before, r.row)).map((r) => r.row.id as string);
    await reindexRows(tx, model, ids);
  });
}

// A parent created with children (a device with the interfaces of its type) indexes the children too.
const searchable = new Set(searchableModels().map((s) => s.model.name));
for (const parent of parentsWithChildren()) {
  if (!searchable.has(parent)) continue;
  addModelHook(parent, 'afterCreate', async ({ tx, model, row }) => {
    await indexChildrenOf(tx, model, [row.id as string]);
  });
}
