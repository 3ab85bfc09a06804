// Bulk edit: pick which fields to change (the write allow-list from /api/editable-fields/ plus the model's
// custom fields), set one value each, and send one bulk-update call. API errors appear on their field.
import { useEffect, useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { ApiError, post, type FieldErrors } from '../../api/client.ts';
import { useEditableFields, useListFields } from '../../api/hooks.ts';
import type { EditableField, ModelInfo } from '../../api/types.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { ErrorState, Loading } from '../../components/states.tsx';
import { FieldInput, customFieldAsEditable, customRequestValue, toFormValue, toRequestValue, type FormValue } from '../../components/fields/FieldInput.tsx';

export function BulkEditDialog({ model, ids, open, onClose, onDone }: { model: ModelInfo; ids: string[]; open: boolean; onClose: () => void; onDone: (updated: number) => void }) {
  const editable = useEditableFields(model.model, open);
  const listFields = useListFields(open ? model.path : undefined);
  const [enabled, setEnabled] = useState<Record<string, boolean>>({});
  const [values, setValues] = useState<Record<string, FormValue>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  useEffect(() => {
    if (open) {
      setEnabled({});
      setValues({});
      setErrors({});
    }
  }, [open]);
  const customs = listFields.data?.custom_fields ?? [];
  // Rows held by one object at a time (a cable's ends) are never set on many at once: the server refuses them in bulk.
  // In the model's own field order (the editable catalog is alphabetical).
  const fields: EditableField[] = [...(editable.data ?? []).filter((f) => f.kind !== 'generic_objects').sort((a, b) => a.position - b.position), ...customs.map(customFieldAsEditable)];
  const save = useMutation({
    mutationFn: () => {
      const body: Record<string, unknown> = {};
      const custom: Record<string, unknown> = {};
      for (const f of fields) {
        if (!enabled[f.key]) continue;
        const v = values[f.key] ?? toFormValue(f, null);
        if (f.key.startsWith('custom_fields.')) {
          const cf = customs.find((c) => c.key === f.key)!;
          custom[cf.name] = customRequestValue(cf, v);
        } else {
          body[f.key] = toRequestValue(f, v);
        }
      }
      if (Object.keys(custom).length) body.custom_fields = custom;
      return post<{ updated: number }>(`${model.path}bulk-update/`, { ids, fields: body });
    },
    onSuccess: (r) => onDone(r.updated),
    onError: (err) => setErrors(err instanceof ApiError ? err.fieldErrors : {}),
  });
  const errorsFor = (key: string) => [...(errors[key] ?? []), ...(errors[`fields.${key}`] ?? [])];
  const known = new Set(fields.flatMap((f) => [f.key, `fields.${f.key}`]));
  const otherErrors = Object.entries(errors).filter(([k]) => !known.has(k));
  const anyEnabled = Object.values(enabled).some(Boolean);
  return (
    <Dialog
      open={open}
      wide
      title={`Edit ${ids.length} ${ids.length === 1 ? model.label : model.label_plural}`}
      onClose={onClose}
      footer={
<DialogActions onCancel={onClose} onConfirm={() => save.mutate()} confirmLabel={`Apply to ${ids.length}`} busyLabel="Saving…" pending={save.isPending} disabled={!anyEnabled} />
      }
    >
      {editable.isLoading || listFields.isLoading ? <Loading /> : null}
      {editable.error ? <ErrorState error={editable.error} /> : null}
      {save.error && !(save.error instanceof ApiError && Object.keys(save.error.fieldErrors).length) ? <ErrorState error={save.error} /> : null}
      {otherErrors.length ? (
        <div role="alert" className="mb-3 rounded bg-red-50 p-2 text-sm text-red-800">
          {otherErrors.map(([k, v]) => (
            <p key={k}>
              {k}: {v.join(' ')}
            </p>
          ))}
        </div>
      ) : null}
      <p className="mb-3 text-sm text-slate-600">Tick the fields to change; the others keep each row's own value.</p>
      <ul className="space-y-3">
        {fields.map((f) => (
          <li key={f.key} className="rounded-md border border-slate-200 p-2">
            <label className="flex items-center gap-2 text-sm font-medium">
              <input type="checkbox" checked={!!enabled[f.key]} onChange={(e) => setEnabled((s) => ({ ...s, [f.key]: e.target.checked }))} />
              Change {f.label}
            </label>
            {enabled[f.key] ? (
              <div className="mt-2">
                <FieldInput field={f} value={values[f.key] ?? toFormValue(f, null)} onChange={(v) => setValues((s) => ({ ...s, [f.key]: v }))} errors={errorsFor(f.key)} />
              </div>
            ) : errorsFor(f.key).length ? (
              <p className="text-sm text-red-700">{errorsFor(f.key).join(' ')}</p>
            ) : null}
          </li>
        ))}
      </ul>
    </Dialog>
  );
}
