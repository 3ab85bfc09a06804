// Target paths are stored in one form (absolute, single slashes, no "." segments; see templating/target-path.ts),
// so bundles compare them as paths. Paths already stored are put in that form, and so are the paths of push
// records that have a directory part, so drift keeps being reported against the same file. A stored path that
// names no file ("/", or ending with "/") loses its trailing slash, or becomes empty (the <name>.<ext> default).
import { sql, type Kysely } from 'kysely';

/** The stored form, or '' where nothing of a file name is left; mirrors normalizeTargetPath without refusing. */
function normalized(path: string): string {
  const segments = path.split('/').filter((s) => s !== '' && s !== '.');
  return segments.length === 0 ? '' : `/${segments.join('/')}`;
}

export async function up(db: Kysely<unknown>): Promise<void> {
  const { rows: templates } = await sql<{ id: string; target_path: string }>`SELECT id, target_path FROM export_templates WHERE target_path <> ''`.execute(db);
  for (const t of templates) {
    const path = normalized(t.target_path);
    if (path !== t.target_path) await sql`UPDATE export_templates SET target_path = ${path} WHERE id = ${t.id}`.execute(db);
  }
  const { rows: paths } = await sql<{ path: string }>`SELECT DISTINCT path FROM config_pushes WHERE path LIKE '%/%'`.execute(db);
  for (const p of paths) {
    const path = normalized(p.path);
    if (path !== p.path && path !== '') await sql`UPDATE config_pushes SET path = ${path} WHERE path = ${p.path}`.execute(db);
  }
}
