// "Add components" on a device: interfaces, console and power ports, front and rear ports, bays… with the device
// filled in, and NetBox's name patterns (`Ethernet1/[1-48]` is 48 interfaces) sent as one list request. The other
// fields are the model's editable fields (/api/editable-fields/), one value for every new component; the API's
// errors of an item (`[3].type`) are shown on their field.
import { useMemo, useState } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { ApiError, post, type FieldErrors } from '../../api/client.ts';
import { useEditableFields, useModels } from '../../api/hooks.ts';
import type { ApiObject, EditableField } from '../../api/types.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { FieldInput, FieldShell, toFormValue, toRequestValue, type FormValue } from '../../components/fields/FieldInput.tsx';
import { ErrorState, Loading, errorMessage } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Button, inputClass } from '../../components/ui.tsx';
import { expandNamePattern, NamePatternError } from './name-pattern.ts';

/** NetBox's device components, in its menu's order: the kinds a device's "Add components" offers. */
export const COMPONENT_MODELS = ['dcim.interface', 'dcim.consoleport', 'dcim.consoleserverport', 'dcim.powerport', 'dcim.poweroutlet', 'dcim.frontport', 'dcim.rearport', 'dcim.modulebay', 'dcim.devicebay', 'dcim.inventoryitem'];

/** Fields the dialog sets itself (the device) or asks in its own way (the name, as a pattern). */
const OWN_FIELDS = new Set(['device', 'name']);

/**
 * A picker filtered by the object being edited (`$self`: a LAG among the interface's siblings) has no object here:
 * the new components' siblings are the device's own components, so it lists the device's (`device_id`).
 */
function forNewComponent(field: EditableField): EditableField {
  if (!field.filters || !Object.values(field.filters).includes('$self')) return field;
  const filters = Object.fromEntries(Object.entries(field.filters).filter(([, v]) => v !== '$self'));
  return { ...field, filters: { ...filters, device_id: '$field:device' } };
}

/** `[3].type` → `type`: an item's error shown on the field every item shares. */
function fieldOfItemError(key: string): string {
  return key.replace(/^\[\d+\]\./, '');
}

export function AddComponentsDialog({ device, open, onClose, initialModel = 'dcim.interface' }: { device: ApiObject; open: boolean; onClose: () => void; initialModel?: string }) {
  const models = useModels();
  const kinds = (models.data ?? []).filter((m) => COMPONENT_MODELS.includes(m.model) && m.can.add).sort((a, b) => COMPONENT_MODELS.indexOf(a.model) - COMPONENT_MODELS.indexOf(b.model));
  const [kind, setKind] = useState(initialModel);
  const model = kinds.find((m) => m.model === kind) ?? kinds[0];
  return (
    <Dialog open={open} wide title={`Add components to ${device.display}`} onClose={onClose}>
      {models.isLoading ? <Loading /> : null}
      {models.error ? <ErrorState error={models.error} retry={() => void models.refetch()} /> : null}
      {models.data && !model ? <p className="text-sm text-slate-600">You cannot add components.</p> : null}
      {model ? (
        <div className="space-y-4">
          <label className="block space-y-1 text-sm">
            <span className="font-medium text-slate-800">Kind</span>
            <select className={inputClass} value={model.model} onChange={(e) => setKind(e.target.value)}>
              {kinds.map((m) => (
                <option key={m.model} value={m.model}>
                  {m.label_plural.charAt(0).toUpperCase() + m.label_plural.slice(1)}
                </option>
              ))}
            </select>
          </label>
          {/* A form of its own per kind: values typed for one kind do not carry to another's fields. */}
          <ComponentsForm key={model.model} device={device} model={model} onClose={onClose} />
        </div>
      ) : null}
    </Dialog>
  );
}

function ComponentsForm({ device, model, onClose }: { device: ApiObject; model: { model: string; path: string; label: string; label_plural: string }; onClose: () => void }) {
  const editable = useEditableFields(model.model);
  const client = useQueryClient();
  const toast = useToast();
  const [pattern, setPattern] = useState('');
  const [values, setValues] = useState<Record<string, FormValue>>({});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [failure, setFailure] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const fields: EditableField[] = useMemo(() => [...(editable.data ?? [])].filter((f) => !OWN_FIELDS.has(f.key)).sort((a, b) => a.position - b.position).map(forNewComponent), [editable.data]);
  const expanded = useMemo((): { names: string[] } | { error: string } => {
    if (!pattern.trim()) return { names: [] };
    try {
      return { names: expandNamePattern(pattern.trim()) };
    } catch (err) {
      return { error: err instanceof NamePatternError ? err.message : String(err) };
    }
  }, [pattern]);
  if (editable.isLoading) return <Loading />;
  if (editable.error) return <ErrorState error={editable.error} retry={() => void editable.refetch()} />;

  const nameErrors = [...('error' in expanded ? [expanded.error] : []), ...(errors.name ?? [])];
  const names = 'names' in expanded ? expanded.names : [];
  const submit = async () => {
    setFailure(null);
    if ('error' in expanded) return;
    if (names.length === 0) {
      setErrors({ name: ['Write a name, or a pattern such as Ethernet1/[1-48].'] });
      return;
    }
    const shared: Record<string, unknown> = {};
    for (const f of fields) if (f.key in values) shared[f.key] = toRequestValue(f, values[f.key]!);
    setBusy(true);
    setErrors({});
    try {
      await post<ApiObject[]>(model.path, names.map((name) => ({ ...shared, device: device.id, name })));
      void client.invalidateQueries({ queryKey: ['list', model.path] });
      toast.show({ message: `Added ${names.length} ${names.length === 1 ? model.label : model.label_plural} to ${device.display}.`, tone: 'success' });
      onClose();
    } catch (err) {
      const byField: FieldErrors = {};
      const fe = err instanceof ApiError ? err.fieldErrors : {};
      for (const [key, messages] of Object.entries(fe)) {
        const item = /^\[(\d+)\]\./.exec(key);
        const field = fieldOfItemError(key);
        // A name's own problem says which name; a shared field's is the same for every item: said once.
        const said = field === 'name' && item ? messages.map((m) => `${names[Number(item[1])]}: ${m}`) : messages;
        byField[field] = [...new Set([...(byField[field] ?? []), ...said])];
      }
      setErrors(byField);
      const known = new Set(['name', ...fields.map((f) => f.key)]);
      const unplaced = Object.entries(byField).filter(([k]) => !known.has(k));
      setFailure(Object.keys(fe).length === 0 ? errorMessage(err) : unplaced.length ? unplaced.map(([k, v]) => `${k}: ${v.join(' ')}`).join('; ') : 'Some fields need attention.');
      setTimeout(() => (document.querySelector('dialog [aria-invalid="true"]') as HTMLElement | null)?.focus(), 0);
    } finally {
      setBusy(false);
    }
  };
  const preview = names.length > 3 ? `${names.slice(0, 2).join(', ')} … ${names.at(-1)}` : names.join(', ');
  return (
    <form
      className="space-y-4 text-left"
      aria-label={`Add ${model.label_plural}`}
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        void submit();
      }}
    >
      {failure ? (
        <div role="alert" className="rounded-md border border-red-200 bg-red-50 p-3 text-sm text-red-800">
          {failure}
        </div>
      ) : null}
      <FieldShell id="component-name-pattern" label="Name" hint="One name, or a pattern that makes several: Ethernet1/[1-48], [ge,xe]-0/0/[0-3], Port[a-c]." errors={nameErrors} required>
        <input
          id="component-name-pattern"
          className={`${inputClass} font-mono`}
          value={pattern}
          aria-invalid={nameErrors.length ? true : undefined}
          aria-describedby={nameErrors.length ? 'component-name-pattern-error' : undefined}
          placeholder="Ethernet1/[1-48]"
          onChange={(e) => {
            setPattern(e.target.value);
            setErrors(({ name: _name, ...rest }) => rest);
          }}
        />
      </FieldShell>
      {names.length ? (
        <p className="text-sm text-slate-700" aria-live="polite" data-name-preview>
          {names.length} {names.length === 1 ? model.label : model.label_plural}: {preview}
        </p>
      ) : null}
      <div className="grid gap-4 sm:grid-cols-2">
        {fields.map((f) => (
          <FieldInput
            key={f.key}
            field={f}
            value={f.key in values ? values[f.key]! : toFormValue(f, null)}
            formValue={(key) => (key === 'device' ? device : null)}
            errors={errors[f.key]}
            onChange={(v) => {
              setValues((s) => ({ ...s, [f.key]: v }));
              // A changed value is no longer the one the answer refused.
              setErrors(({ [f.key]: _changed, ...rest }) => rest);
            }}
          />
        ))}
      </div>
      <div className="flex justify-end gap-2 border-t border-slate-200 pt-3">
        <Button onClick={onClose}>Cancel</Button>
        <Button type="submit" variant="primary" disabled={busy || 'error' in expanded}>
          {busy ? 'Creating…' : names.length > 1 ? `Create ${names.length} ${model.label_plural}` : `Create ${model.label}`}
        </Button>
      </div>
    </form>
  );
}
