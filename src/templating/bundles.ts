// Config bundles: a named set of device templates plus the device roles it applies to (SPEC "Config bundle").
// The rules: only device templates, and no two templates of a bundle landing at one path, checked when the
// bundle is saved and again when a template's path-deciding fields change later (so a bundle can never hold a
// clash, whichever side is edited).
import { sql, type Kysely } from 'kysely';
import type { DB } from '../db/types.ts';
import { addModelHook, defineModel } from '../core/registry.ts';
import { addListFilters } from '../core/crud/read.ts';
import { ApiError, fieldError } from '../core/errors.ts';
import { isUuid } from '../core/ids.ts';
import type { Row } from '../core/crud/serialize.ts';
import { bundlePathOf } from './models.ts';
import { bundlePathKey } from './target-path.ts';
import './models.ts';
import { inTenant } from '../core/access.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** The object type a config template renders for: only these go in bundles and bindings. */
export const DEVICE_TEMPLATE_TYPE = 'dcim.device';

/**
 * Bundle names: printable, no quotes, slashes or angle brackets (they appear in query strings, file names and
 * error messages), and never `role`, which `?bundle=role` reserves.
 */
export const BUNDLE_NAME_RE = /^[^\u0000-\u001f\u007f"'`<>\\/]{1,128}$/;

/** Refuses a set of templates that would land two files at one path: names both templates and the path. */
export function pathClash(templates: Row[]): string | null {
  const seen = new Map<string, string>();
  for (const t of [...templates].sort((a, b) => String(a.name).localeCompare(String(b.name)))) {
    const path = bundlePathOf(t);
    const key = bundlePathKey(path);
    const other = seen.get(key);
    if (other !== undefined) return `${other} and ${String(t.name)} both land at /${key}; give one a target path.`;
    seen.set(key, String(t.name));
  }
  return null;
}

async function checkBundleTemplates(tx: Kysely<DB>, tenantId: string | null, ids: string[]): Promise<void> {
  if (ids.length === 0 || !tenantId) return;
  const valid = ids.filter(isUuid);
  const { rows } = await sql<Row>`SELECT id, name, object_type, target_path, file_extension FROM export_templates
    WHERE ${inTenant(tenantId)} AND id = ANY(${valid}::uuid[])`.execute(tx);
  const wrong = rows.filter((r) => r.object_type !== DEVICE_TEMPLATE_TYPE).map((r) => String(r.name)).sort();
  if (wrong.length) throw fieldError('templates', `Only device templates go in a bundle; not ${wrong.join(', ')}.`);
  const clash = pathClash(rows);
  if (clash) throw fieldError('templates', clash);
}

export const configBundleModel = defineModel({
  name: 'extras.configbundle',
  table: 'config_bundles',
  path: '/api/config-bundles/',
  label: 'config bundle',
  tenantScoped: true,
  fields: {
    name: {
      kind: 'string',
      maxLength: 128,
      unique: true,
      pattern: BUNDLE_NAME_RE,
      patternMessage: 'Printable characters without quotes, slashes, backslashes or angle brackets.',
    },
    description: { kind: 'text', maxLength: 2000, default: '' },
    templates: {
      kind: 'm2m',
      target: 'extras.exporttemplate',
      through: { table: 'config_bundle_templates', from: 'bundle_id', to: 'template_id' },
      help: 'Device export templates; each lands at its path in the bundle, and no two at the same one.',
    },
    roles: { kind: 'm2m', target: 'dcim.devicerole', through: { table: 'config_bundle_roles', from: 'bundle_id', to: 'role_id' }, help: 'Device roles `bundle=role` resolves to this bundle.' },
  },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    async validate({ tx, ctx, input }) {
      if (typeof input.name === 'string' && input.name.trim().toLowerCase() === 'role') {
        throw fieldError('name', '"role" is reserved: bundle=role picks the bundle bound to the device\'s role.');
      }
      if (Array.isArray(input.templates)) await checkBundleTemplates(tx, ctx.tenantId, input.templates.filter((v): v is string => typeof v === 'string'));
    },
  },
});

addListFilters('extras.configbundle', {
  // Bundles bound to a role: `?role=<id>` (the UI lists a role's bundles).
  role: (values, alias) => {
    const ids = values.filter(isUuid);
    if (ids.length !== values.length) return { error: 'Expected role ids.' };
    return sql`EXISTS (SELECT 1 FROM config_bundle_roles j WHERE j.bundle_id = ${sql.ref(`${alias}.id`)} AND j.role_id = ANY(${ids}::uuid[]))`;
  },
});

// A template edited after it joined a bundle: its new path (or type) must still fit every bundle it is in.
// Checked after the update inside the same transaction, so refusing rolls the edit back.
addModelHook('extras.exporttemplate', 'afterUpdate', async ({ tx, row, before }) => {
  const changed = ['name', 'target_path', 'file_extension', 'object_type'].some((k) => row[k] !== before[k]);
  if (!changed) return;
  const { rows } = await sql<Row & { bundle_name: string; bundle_id: string }>`
    SELECT b.id AS bundle_id, b.name AS bundle_name, t.id, t.name, t.object_type, t.target_path, t.file_extension
    FROM config_bundle_templates j JOIN config_bundles b ON b.id = j.bundle_id
    JOIN config_bundle_templates j2 ON j2.bundle_id = b.id JOIN export_templates t ON t.id = j2.template_id
    WHERE j.template_id = ${String(row.id)}`.execute(tx);
  if (rows.length === 0) return;
  if (row.object_type !== DEVICE_TEMPLATE_TYPE) {
    const names = [...new Set(rows.map((r) => r.bundle_name))].sort();
    throw fieldError('object_type', `This template is in bundle ${names.join(', ')}; bundles hold device templates only.`);
  }
  const byBundle = new Map<string, Row[]>();
  for (const r of rows) byBundle.set(r.bundle_name, [...(byBundle.get(r.bundle_name) ?? []), r]);
  for (const [name, templates] of byBundle) {
    const clash = pathClash(templates);
    if (clash) throw new ApiError(400, { target_path: [`In bundle ${name}: ${clash}`] });
  }
});
