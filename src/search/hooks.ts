// Keeps the search index current on every write: statement triggers derived from the registry do it inside the
// writing statement (triggers.ts), so SQL written past the registry hooks is indexed like an API write. They
// are synchronised after every migration run, since a release can change what is searched without a migration.
// Imported last by src/models.ts, once every model exists.
import { runAfterMigrations } from '../db/migrator.ts';
import { syncSearchTriggers } from './triggers.ts';

runAfterMigrations(async (db) => {
  await syncSearchTriggers(db);
});
