// The create/edit form of any model: one editor per editable field (from /api/editable-fields/) plus the
// model's custom fields. Only fields the user touched are sent (the server fills defaults and keeps the rest);
// the API's `{field: [message]}` errors are shown on their field, anything else above the form.
import { useMemo, useState, type FormEvent } from 'react';
import { ApiError, type FieldErrors } from '../../api/client.ts';
import { useEditableFields, useListFields } from '../../api/hooks.ts';
import type { ApiObject, CustomFieldColumn, EditableField, ModelInfo } from '../../api/types.ts';
import { ErrorState, Loading, errorMessage } from '../../components/states.tsx';
import { Button } from '../../components/ui.tsx';
import { FieldInput, customFieldAsEditable, customFormValue, customRequestValue, toFormValue, toRequestValue, type FormValue } from '../../components/fields/FieldInput.tsx';

interface Props {
  model: ModelInfo;
  object?: ApiObject;
  submitLabel: string;
  /** A new object's values given by the page that opened the form (`?address=…` on the URL): shown, and sent as shown. */
  prefill?: Record<string, unknown>;
  onSubmit: (body: Record<string, unknown>) => Promise<unknown>;
  onCancel: () => void;
}

/** NetBox's slugify: lower case, runs of anything but letters, digits, _ and - become one dash, at most 100 characters. */
export function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
}

const isBrief = (v: unknown): boolean => typeof v === 'object' && v !== null && typeof (v as { id?: unknown }).id === 'string' && typeof (v as { display?: unknown }).display === 'string';

/** Whether a value from the URL has the shape the field's editor holds (a typed or stale link is ignored, not shown broken). */
function prefillFits(f: EditableField, v: unknown): boolean {
  if (f.kind === 'object' || f.kind === 'status') return isBrief(v);
  if (f.kind === 'objects' || f.kind === 'tags' || f.kind === 'generic_objects') return Array.isArray(v) && v.every(isBrief);
  return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean';
}

export function ObjectForm({ model, object, submitLabel, prefill, onSubmit, onCancel }: Props) {
  const editable = useEditableFields(model.model);
  const listFields = useListFields(model.path);
  const customs: CustomFieldColumn[] = listFields.data?.custom_fields ?? [];
  // The model's own field order (the editable catalog is alphabetical).
  const fields: EditableField[] = useMemo(
    () => [...[...(editable.data ?? [])].sort((a, b) => a.position - b.position), ...customs.map(customFieldAsEditable)],
    [editable.data, customs],
  );
  const longText = new Set((listFields.data?.fields ?? []).filter((f) => f.kind === 'longtext').map((f) => f.key));
  const [values, setValues] = useState<Record<string, FormValue>>({});
  const [dirty, setDirty] = useState<Set<string>>(new Set());
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // On a new object the slug follows its name (or a device type's model) as one types, until it is edited by hand.
  const [slugByHand, setSlugByHand] = useState(false);

  if (editable.isLoading || listFields.isLoading) return <Loading />;
  if (editable.error) return <ErrorState error={editable.error} retry={() => void editable.refetch()} />;

  const customOf = (key: string) => customs.find((c) => c.key === key);
  const given = (f: EditableField) => !object && prefill !== undefined && Object.hasOwn(prefill, f.key) && !customOf(f.key) && prefillFits(f, prefill[f.key]);
  const initial = (f: EditableField): FormValue => {
    if (given(f)) return toFormValue(f, prefill![f.key]);
    const cf = customOf(f.key);
    if (cf) return customFormValue(cf, (object?.custom_fields as Record<string, unknown> | undefined)?.[cf.name] ?? null);
    return toFormValue(f, object?.[f.key] ?? null);
  };
  const valueOf = (f: EditableField) => (f.key in values ? values[f.key]! : initial(f));

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const body: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    for (const f of fields) {
      if (!dirty.has(f.key) && !given(f)) continue;
      const cf = customOf(f.key);
      if (cf) custom[cf.name] = customRequestValue(cf, valueOf(f));
      else body[f.key] = toRequestValue(f, valueOf(f));
    }
    if (Object.keys(custom).length) body.custom_fields = custom;
    setBusy(true);
    setErrors({});
    setFailure(null);
    try {
      await onSubmit(body);
    } catch (err) {
      const fe = err instanceof ApiError ? err.fieldErrors : {};
      setErrors(fe);
      const known = new Set(fields.map((f) => f.key));
      const unplaced = Object.entries(fe).filter(([k]) => !known.has(k));
      setFailure(Object.keys(fe).length === 0 ? errorMessage(err) : unplaced.length ? unplaced.map(([k, v]) => `${k}: ${v.join(' ')}`).join('; ') : 'Some fields need attention.');
      // Put the keyboard on the first field with a problem.
      setTimeout(() => (document.querySelector('[aria-invalid="true"]') as HTMLElement | null)?.focus(), 0);
    } finally {
      setBusy(false);
    }
  };

  const slugSource = fields.some((f) => f.key === 'name') ? 'name' : 'model';
  const plain = fields.filter((f) => !customOf(f.key));
  const custom = fields.filter((f) => customOf(f.key));
  const editor = (f: EditableField) => (
    <FieldInput
      key={f.key}
      field={f}
      value={valueOf(f)}
      objectId={typeof object?.id === 'string' ? object.id : undefined}
      formValue={(key) => {
        const other = fields.find((x) => x.key === key);
        return other ? valueOf(other) : null;
      }}
      errors={errors[f.key]}
      multiline={longText.has(f.key) || customOf(f.key)?.type === 'longtext' || customOf(f.key)?.type === 'json'}
      onChange={(v) => {
        setValues((s) => ({ ...s, [f.key]: v }));
        setDirty((d) => new Set(d).add(f.key));
        if (f.key === 'slug') setSlugByHand(true);
        else if (f.key === slugSource && !object && !slugByHand && fields.some((x) => x.key === 'slug') && typeof v === 'string') {
          setValues((s) => ({ ...s, slug: slugify(v) }));
          setDirty((d) => new Set(d).add('slug'));
        }
      }}
    />
  );
  return (
    <form onSubmit={submit} noValidate className="max-w-3xl space-y-6" aria-label={`${submitLabel} ${model.label}`}>
      {failure ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {failure}
        </div>
      ) : null}
      <fieldset className="grid gap-4 rounded-lg border border-slate-200 bg-white p-4 sm:grid-cols-2">
        <legend className="px-1 text-sm font-semibold">{model.label.charAt(0).toUpperCase() + model.label.slice(1)}</legend>
        {plain.map(editor)}
      </fieldset>
      {custom.length ? (
        <fieldset className="grid gap-4 rounded-lg border border-slate-200 bg-white p-4 sm:grid-cols-2">
          <legend className="px-1 text-sm font-semibold">Custom fields</legend>
          {custom.map(editor)}
        </fieldset>
      ) : null}
      <div className="flex gap-2">
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </Button>
        <Button onClick={onCancel}>Cancel</Button>
      </div>
    </form>
  );
}
