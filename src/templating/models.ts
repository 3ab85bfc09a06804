// The export template record: a named template over one object type, checked when saved (it compiles, its type
// may feed a template). Rendering lives in export.ts; nothing here reads other rows.
import { defineModel, type ComputedField } from '../core/registry.ts';
import { ErrorCollector } from '../core/errors.ts';
import { checkSubjectType } from './subjects.ts';
import { compileError } from './environment.ts';
import { normalizeTargetPath, targetPathProblem } from './target-path.ts';
import { PLANNED_BY_LOADERS } from '../core/crud/row-rules.ts';

/** What `bundle_path` falls back to: `<name>.<file_extension>`. */
export function bundlePathOf(row: Record<string, unknown>): string {
  const target = typeof row.target_path === 'string' ? row.target_path : '';
  if (target) return target;
  const ext = typeof row.file_extension === 'string' && row.file_extension ? row.file_extension : 'txt';
  return `${String(row.name)}.${ext}`;
}

const lineCount: ComputedField = {
  label: 'Line count',
  kind: 'number',
  schema: { type: 'integer' },
  async load({ rows }) {
    return new Map(rows.map((r) => {
      const code = typeof r.template_code === 'string' ? r.template_code : '';
      return [String(r.id), code === '' ? 0 : code.replace(/\n$/, '').split('\n').length];
    }));
  },
};

const bundlePath: ComputedField = {
  label: 'Bundle path',
  kind: 'string',
  schema: { type: 'string' },
  async load({ rows }) {
    return new Map(rows.map((r) => [String(r.id), bundlePathOf(r)]));
  },
};

// No control characters: names end up in Content-Disposition headers and file names.
const NO_CONTROL = /^[^\u0000-\u001f\u007f]*$/;

export const exportTemplateModel = defineModel({
  name: 'extras.exporttemplate',
  table: 'export_templates',
  path: '/api/export-templates/',
  netbox: { objectTypes: ['object_type'] },
  label: 'export template',
  tenantScoped: true,
  fields: {
    name: { kind: 'string', maxLength: 128, unique: true, pattern: /^[^\u0000-\u001f\u007f/\\]+$/, patternMessage: 'No slashes or control characters: the name becomes a file name.' },
    object_type: { kind: 'string', maxLength: 64, help: 'The type whose rows feed the template, as app.model (e.g. dcim.device).' },
    description: { kind: 'text', maxLength: 2000, default: '' },
    template_code: { kind: 'text', label: 'Template', maxLength: 1_000_000, help: 'Jinja2 source, checked on save.' },
    mime_type: {
      kind: 'string',
      label: 'MIME type',
      maxLength: 64,
      default: 'text/plain',
      pattern: /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/,
      patternMessage: 'A MIME type such as text/plain or text/csv.',
      help: 'Served as declared when inert (text/plain, text/csv, application/json, XML, YAML); anything else as text/plain.',
    },
    file_extension: { kind: 'string', maxLength: 16, default: 'txt', pattern: /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/, patternMessage: 'Letters, digits, . _ and - only, without a leading dot.' },
    as_attachment: { kind: 'boolean', label: 'Download as attachment', default: true },
    target_path: {
      kind: 'string',
      maxLength: 500,
      default: '',
      pattern: NO_CONTROL,
      // Stored as an absolute path with single slashes; the reason for a refusal is given by the validate hook.
      normalize: (value) => normalizeTargetPath(value) ?? value,
      patternMessage: 'No control characters.',
      help: 'Where the file lands on a device, for bundles, stored as /a/b (// and ./ collapsed). Without it the file is named after the template, with its file extension.',
    },
  },
  computed: { line_count: lineCount, bundle_path: bundlePath },
  searchFields: ['name', 'description'],
  defaultOrdering: ['name'],
  bulkLoadValidation: PLANNED_BY_LOADERS,
  hooks: {
    // A PATCH that sends neither field keeps what was checked when the record was saved.
    async validate({ input }) {
      const errors = new ErrorCollector();
      if (typeof input.object_type === 'string') {
        const checked = checkSubjectType(input.object_type);
        if (!checked.ok) errors.add('object_type', checked.message);
      }
      if (typeof input.template_code === 'string') {
        const problem = compileError(input.template_code);
        if (problem) errors.add('template_code', problem);
      }
      if (typeof input.target_path === 'string' && input.target_path !== '') {
        const problem = targetPathProblem(input.target_path);
        if (problem) errors.add('target_path', problem);
      }
      errors.throwIfAny();
    },
  },
});
