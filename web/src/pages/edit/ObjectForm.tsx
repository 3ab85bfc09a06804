// The create/edit form of any model: one editor per editable field (from /api/editable-fields/) plus the
// model's custom fields. An add form shows each field's default (the registry's, a custom field's, the status
// marked default for the model) and sends what it shows; an edit form sends only the fields the user touched.
// Required fields are marked before any submit and checked all at once; the API's `{field: [message]}` errors are
// shown on their fields, all of them, listed above the form, with the keyboard on the first.
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ApiError, type FieldErrors } from '../../api/client.ts';
import { useEditableFields, useListFields } from '../../api/hooks.ts';
import type { ApiObject, CustomFieldColumn, EditableField, ModelInfo } from '../../api/types.ts';
import { ErrorState, Loading, errorMessage } from '../../components/states.tsx';
import { statusesQuery } from '../../components/StatusBadge.tsx';
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
  const formRef = useRef<HTMLFormElement>(null);
  // Bumped by each refused submit: once the errors are drawn, the keyboard goes to the first field with a problem
  // (in the form's order) and the page scrolls to it.
  const [refusals, setRefusals] = useState(0);
  useEffect(() => {
    if (!refusals) return;
    const first = formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]');
    first?.focus();
    first?.scrollIntoView({ block: 'center' });
  }, [refusals]);
  // The status a new object gets when none is sent (statuses.ts applyDefaultStatus): shown, and sent, as chosen.
  const statuses = useQuery({ ...statusesQuery, enabled: !object });
  const defaultStatus = (statuses.data?.results ?? []).find((st) => Array.isArray(st.default_for) && (st.default_for as string[]).includes(model.model)) ?? null;

  if (editable.isLoading || listFields.isLoading) return <Loading />;
  if (editable.error) return <ErrorState error={editable.error} retry={() => void editable.refetch()} />;

  const customOf = (key: string) => customs.find((c) => c.key === key);
  const given = (f: EditableField) => !object && prefill !== undefined && Object.hasOwn(prefill, f.key) && !customOf(f.key) && prefillFits(f, prefill[f.key]);
  /** On an add form: the value the server would store for a field left alone, or undefined when it stores nothing. */
  const defaultOf = (f: EditableField): unknown => {
    if (object) return undefined;
    const cf = customOf(f.key);
    if (cf) return cf.default ?? undefined;
    if (f.kind === 'status') return defaultStatus ?? undefined;
    return f.default;
  };
  const initial = (f: EditableField): FormValue => {
    if (given(f)) return toFormValue(f, prefill![f.key]);
    const cf = customOf(f.key);
    if (cf) return customFormValue(cf, object ? ((object.custom_fields as Record<string, unknown> | undefined)?.[cf.name] ?? null) : (cf.default ?? null));
    return toFormValue(f, object ? (object[f.key] ?? null) : (defaultOf(f) ?? null));
  };
  const valueOf = (f: EditableField) => (f.key in values ? values[f.key]! : initial(f));
  // On an edit only what was changed is checked: a stored secret reads empty, and a custom field made required
  // since must not block an unrelated edit (the server checks it only when it is sent).
  const requiredOf = (f: EditableField) => f.required && (!object || dirty.has(f.key));
  const isEmpty = (v: FormValue) => v === null || v === '' || (Array.isArray(v) && v.length === 0);
  const labelOf = (key: string) => fields.find((f) => f.key === key)?.label ?? key;

  const focusFirstProblem = () => setRefusals((n) => n + 1);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // Every required field left empty, all at once, before anything is sent.
    const missing = fields.filter((f) => requiredOf(f) && isEmpty(valueOf(f)));
    if (missing.length) {
      setErrors(Object.fromEntries(missing.map((f) => [f.key, ['This field is required.']])));
      setFailure(null);
      focusFirstProblem();
      return;
    }
    const body: Record<string, unknown> = {};
    const custom: Record<string, unknown> = {};
    for (const f of fields) {
      // What the add form shows is what it sends: a default shown, or a value filled in, is a value chosen.
      if (!dirty.has(f.key) && !given(f) && defaultOf(f) === undefined) continue;
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
      setFailure(Object.keys(fe).length === 0 ? errorMessage(err) : unplaced.length ? unplaced.map(([k, v]) => `${k === 'non_field_errors' ? '' : `${labelOf(k)}: `}${v.join(' ')}`).join('; ') : null);
      focusFirstProblem();
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
  const placed = fields.filter((f) => errors[f.key]?.length);
  return (
    <form ref={formRef} onSubmit={submit} noValidate className="max-w-3xl space-y-6" aria-label={`${submitLabel} ${model.label}`}>
      {failure || placed.length ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800" data-form-errors={placed.length}>
          {failure ? <p>{failure}</p> : null}
          {placed.length ? (
            <>
              <p>{placed.length === 1 ? '1 field needs attention:' : `${placed.length} fields need attention:`}</p>
              <ul className="mt-1 list-disc pl-5">
                {placed.map((f) => (
                  <li key={f.key}>
                    <span className="font-medium">{f.label}</span>: {errors[f.key]!.join(' ')}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
      <p className="text-xs text-slate-500">
        Fields marked <span className="text-red-700">*</span> are required.
      </p>
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
