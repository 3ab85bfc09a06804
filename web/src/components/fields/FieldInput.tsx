// One editor per editable-field kind (from /api/editable-fields/) and per custom-field type (from
// /api/list-fields/), with the API's error shown under the field. Values are kept in the form's own shape and
// turned into request values by toRequestValue.
import { useId } from 'react';
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import { useChoices } from '../../api/hooks.ts';
import type { Brief, CustomFieldColumn, EditableField, Option, Page } from '../../api/types.ts';
import { inputClass } from '../ui.tsx';
import { GenericObjectPicker, MultiObjectPicker, ObjectPicker } from './ObjectPicker.tsx';
import { statusesQuery } from '../StatusBadge.tsx';

/** A form value: text for scalar inputs, booleans, a brief row, or a list of them. */
export type FormValue = string | boolean | null | Brief | Brief[] | string[];

export function FieldShell({ id, label, hint, errors, children, required, fieldKey }: { id: string; label: string; hint?: string; errors?: string[]; children: React.ReactNode; required?: boolean; fieldKey?: string }) {
  return (
    <div className="space-y-1" data-field={id} data-field-key={fieldKey} data-required={required || undefined}>
      {/* The mark stays outside the label: the field's name is its label alone (aria-required says the rest). */}
      <div className="text-sm font-medium text-slate-800">
        <label htmlFor={id}>{label}</label>
        {required ? (
          <span className="text-red-700" aria-hidden="true" title="Required">
            {' '}*
          </span>
        ) : null}
      </div>
      {children}
      {hint ? <p className="text-xs text-slate-500">{hint}</p> : null}
      {errors?.length ? (
        <p id={`${id}-error`} role="alert" className="text-sm text-red-700">
          {errors.join(' ')}
        </p>
      ) : null}
    </div>
  );
}

function StatusSelect({ id, statusModel, value, onChange, invalid }: { id: string; statusModel: string; value: Brief | null; onChange: (v: Brief | null) => void; invalid: boolean }) {
  const statuses = useQuery(statusesQuery);
  const options = (statuses.data?.results ?? []).filter((s) => s.available_to.length === 0 || s.available_to.includes(statusModel));
  return (
    <select id={id} className={inputClass} aria-invalid={invalid || undefined} value={value?.id ?? ''} onChange={(e) => onChange(options.find((o) => o.id === e.target.value) ?? null)}>
      <option value="">{statuses.isLoading ? 'Loading…' : '—'}</option>
      {options.map((o) => (
        <option key={o.id} value={o.id}>
          {o.display}
        </option>
      ))}
    </select>
  );
}

function ChoiceSelect({ id, options, vocabulary, value, onChange, invalid, nullable }: { id: string; options?: Option[]; vocabulary?: string; value: string | null; onChange: (v: string | null) => void; invalid: boolean; nullable: boolean }) {
  const choices = useChoices();
  const list = options ?? (vocabulary ? choices.data?.[vocabulary] : undefined) ?? [];
  return (
    <select id={id} className={inputClass} aria-invalid={invalid || undefined} value={value ?? ''} onChange={(e) => onChange(e.target.value || null)}>
      {nullable || !value ? <option value="">—</option> : null}
      {list.map((o) => (
        <option key={o.value} value={o.value}>
          {o.label}
        </option>
      ))}
    </select>
  );
}

/**
 * A picker's filters with `$self` replaced by the edited object's id (left out when creating: there is none yet)
 * and `$field:<key>` by the id the form's `<key>` picker holds (left out while it is empty), so a device's rack
 * is picked among the racks of the site chosen above it.
 */
function pickerParams(field: EditableField, objectId: string | undefined, formValue?: (key: string) => FormValue): Record<string, string> | undefined {
  if (!field.filters) return undefined;
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(field.filters)) {
    if (v === '$self') {
      if (objectId) out[k] = objectId;
    } else if (v.startsWith('$field:')) {
      const picked = formValue?.(v.slice('$field:'.length));
      if (picked && typeof picked === 'object' && !Array.isArray(picked) && typeof (picked as Brief).id === 'string') out[k] = (picked as Brief).id;
    } else out[k] = v;
  }
  return out;
}

export function FieldInput({
  field,
  value,
  onChange,
  errors,
  multiline,
  objectId,
  formValue,
}: {
  field: EditableField;
  value: FormValue;
  onChange: (v: FormValue) => void;
  errors?: string[];
  multiline?: boolean;
  /** The object being edited, for pickers filtered by it. */
  objectId?: string;
  /** The form's current value of another field, for pickers filtered by it (`$field:<key>`). */
  formValue?: (key: string) => FormValue;
}) {
  const id = `field-${field.key}-${useId()}`;
  const invalid = !!errors?.length;
  const common = { id, 'aria-invalid': invalid || undefined, 'aria-required': field.required || undefined, 'aria-describedby': invalid ? `${id}-error` : undefined };
  let input: React.ReactNode;
  switch (field.kind) {
    case 'bool':
      input = field.nullable ? (
        <select {...common} className={inputClass} value={value === null ? '' : String(value)} onChange={(e) => onChange(e.target.value === '' ? null : e.target.value === 'true')}>
          <option value="">—</option>
          <option value="true">Yes</option>
          <option value="false">No</option>
        </select>
      ) : (
        <input {...common} type="checkbox" className="size-4" checked={value === true} onChange={(e) => onChange(e.target.checked)} />
      );
      break;
    case 'choice':
      input = <ChoiceSelect id={id} options={field.options} vocabulary={field.choices} value={typeof value === 'string' ? value : null} onChange={onChange} invalid={invalid} nullable={field.nullable} />;
      break;
    case 'status':
      input = <StatusSelect id={id} statusModel={field.status_model!} value={(value as Brief | null) ?? null} onChange={onChange} invalid={invalid} />;
      break;
    case 'object':
      input = <ObjectPicker id={id} endpoint={field.endpoint!} label={field.label} invalid={invalid} nullable={field.nullable} value={(value as Brief | null) ?? null} onChange={onChange} params={pickerParams(field, objectId, formValue)} scope={field.scope} />;
      break;
    case 'objects':
    case 'tags':
      input = <MultiObjectPicker id={id} endpoint={field.endpoint!} label={field.label} invalid={invalid} value={Array.isArray(value) ? (value as Brief[]) : []} onChange={onChange} params={pickerParams(field, objectId, formValue)} />;
      break;
    case 'generic_objects':
      // A cable end offers the ports no cable uses yet (a taken one would be refused anyway).
      input = (
        <GenericObjectPicker id={id} label={field.label} invalid={invalid} models={field.object_models ?? []} value={Array.isArray(value) ? (value as Brief[]) : []} onChange={onChange} params={{ cabled: 'false' }} />
      );
      break;
    case 'int':
    case 'decimal':
      if (field.widget === 'rack_unit') {
        input = <RackUnitSelect common={common} value={typeof value === 'string' ? value : ''} onChange={onChange} objectId={objectId} formValue={formValue} />;
        break;
      }
      input = <input {...common} className={inputClass} inputMode={field.kind === 'int' ? 'numeric' : 'decimal'} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'date':
      input = <input {...common} type="date" className={inputClass} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'datetime':
      input = <input {...common} type="datetime-local" className={inputClass} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'secret':
      // Never shown back: an empty box means "keep what is stored" until something is typed.
      input = <input {...common} type="password" autoComplete="new-password" placeholder="Unchanged" className={inputClass} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
      break;
    case 'json':
      input = <textarea {...common} className={`${inputClass} min-h-24 font-mono`} spellCheck={false} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />;
      break;
    default:
      input = multiline ? (
        <textarea {...common} className={`${inputClass} min-h-24`} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />
      ) : (
        <input {...common} className={inputClass} value={typeof value === 'string' ? value : ''} onChange={(e) => onChange(e.target.value)} />
      );
  }
  return (
    <FieldShell id={id} label={field.label} hint={field.hint} errors={errors} required={field.required} fieldKey={field.key}>
      {input}
    </FieldShell>
  );
}

interface ElevationUnit {
  id: number;
  name: string;
  occupied: boolean;
  device: { id: string } | null;
}

/**
 * A device's position: the units of the rack picked in the form where a device of the picked type fits (every unit
 * it would take free on the picked face, and on the other face too for a full-depth type; the device being edited
 * frees its own units). The server checks the placement again on save.
 */
function RackUnitSelect({ common, value, onChange, objectId, formValue }: { common: Record<string, unknown> & { id: string }; value: string; onChange: (v: FormValue) => void; objectId?: string; formValue?: (key: string) => FormValue }) {
  const rack = formValue?.('rack') as Brief | null | undefined;
  const type = formValue?.('device_type') as Brief | null | undefined;
  const faceValue = formValue?.('face');
  const face = faceValue === 'rear' ? 'rear' : 'front';
  const other = face === 'front' ? 'rear' : 'front';
  const rackId = rack && typeof rack.id === 'string' ? rack.id : null;
  const typeId = type && typeof type.id === 'string' ? type.id : null;
  const units = useQuery({
    queryKey: ['rack-units', rackId],
    enabled: !!rackId,
    queryFn: async () => {
      const [front, rear] = await Promise.all((['front', 'rear'] as const).map((f) => get<Page<ElevationUnit>>(`/api/racks/${rackId}/elevation/`, { face: f })));
      return { front: front!.results, rear: rear!.results };
    },
  });
  const deviceType = useQuery({
    queryKey: ['object', '/api/device-types/', typeId],
    enabled: !!typeId,
    queryFn: () => get<{ u_height: number | string; is_full_depth: boolean }>(`/api/device-types/${typeId}/`),
  });
  const height = deviceType.data ? Math.ceil(Number(deviceType.data.u_height)) : 1;
  const fullDepth = deviceType.data?.is_full_depth ?? false;
  const taken = (f: 'front' | 'rear') => new Set((units.data?.[f] ?? []).filter((u) => u.occupied && u.device?.id !== objectId).map((u) => u.id));
  const blocked = units.data ? new Set([...taken(face), ...(fullDepth ? taken(other) : [])]) : new Set<number>();
  const all = (units.data?.[face] ?? []).map((u) => u.id).sort((a, b) => a - b);
  const top = all.length ? all[all.length - 1]! : 0;
  const free = height > 0 ? all.filter((u) => u + height - 1 <= top && Array.from({ length: height }, (_, i) => u + i).every((x) => !blocked.has(x))) : [];
  const span = (u: number) => (height > 1 ? `U${u}–U${u + height - 1}` : `U${u}`);
  const placeholder = !rackId ? 'Choose a rack first' : units.isLoading ? 'Loading…' : height === 0 ? 'Takes no unit (0U)' : free.length ? '—' : `No free unit on the ${face}`;
  const kept = value !== '' && !free.includes(Number(value));
  return (
    <select {...common} className={inputClass} value={value} disabled={!rackId && value === ''} onChange={(e) => onChange(e.target.value)} data-free-units={free.length}>
      <option value="">{placeholder}</option>
      {kept ? <option value={value}>{`U${value}`}</option> : null}
      {[...free].reverse().map((u) => (
        <option key={u} value={String(u)}>
          {span(u)}
        </option>
      ))}
    </select>
  );
}

/** The form value of an API value. */
export function toFormValue(field: EditableField, apiValue: unknown): FormValue {
  switch (field.kind) {
    case 'bool':
      return apiValue === null || apiValue === undefined ? (field.nullable ? null : false) : apiValue === true;
    case 'object':
    case 'status':
      return (apiValue as Brief | null) ?? null;
    case 'objects':
    case 'generic_objects':
    case 'tags':
      return Array.isArray(apiValue) ? (apiValue as Brief[]) : [];
    case 'datetime':
      return typeof apiValue === 'string' ? toLocalInput(apiValue) : '';
    case 'choice':
      return typeof apiValue === 'string' ? apiValue : null;
    case 'json':
      return apiValue === null || apiValue === undefined ? '' : JSON.stringify(apiValue, null, 2);
    case 'list':
      return Array.isArray(apiValue) ? apiValue.join(', ') : '';
    default:
      return apiValue === null || apiValue === undefined ? '' : String(apiValue);
  }
}

function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The request value of a form value. Empty text is null for nullable fields; numbers stay text when they do not parse, so the API names the problem. */
export function toRequestValue(field: EditableField, v: FormValue): unknown {
  switch (field.kind) {
    case 'bool':
      return v;
    case 'object':
    case 'status':
      return v ? (v as Brief).id : null;
    case 'objects':
    case 'tags':
      return ((v as Brief[]) ?? []).map((r) => r.id);
    case 'generic_objects':
      return ((v as Brief[]) ?? []).map((r) => ({ object_type: r.object_type, object_id: r.id }));
    case 'int':
    case 'decimal': {
      const s = typeof v === 'string' ? v.trim() : '';
      if (s === '') return field.nullable ? null : s;
      const n = Number(s);
      return Number.isFinite(n) && (field.kind === 'decimal' || Number.isInteger(n)) ? n : s;
    }
    case 'datetime': {
      const s = typeof v === 'string' ? v : '';
      if (!s) return null;
      const d = new Date(s);
      return Number.isNaN(d.getTime()) ? s : d.toISOString();
    }
    case 'choice':
    case 'date':
      return v === '' || v === null ? null : v;
    case 'json': {
      // Text that does not parse is sent as it is, so the API names what is wrong with it.
      const s = typeof v === 'string' ? v.trim() : '';
      if (s === '') return null;
      try {
        return JSON.parse(s) as unknown;
      } catch {
        return s;
      }
    }
    case 'list': {
      const items = (typeof v === 'string' ? v : '').split(/[\s,]+/).filter(Boolean);
      return field.items === 'int' ? items.map((i) => (/^\d+$/.test(i) ? Number(i) : i)) : items;
    }
    default:
      return v === '' && field.nullable ? null : v ?? '';
  }
}

/** Custom fields edit like ordinary fields; their descriptor comes from /api/list-fields/. */
export function customFieldAsEditable(cf: CustomFieldColumn): EditableField {
  const kind: EditableField['kind'] = cf.type === 'boolean' ? 'bool' : cf.type === 'integer' ? 'int' : cf.type === 'decimal' ? 'decimal' : cf.type === 'date' ? 'date' : cf.type === 'select' ? 'choice' : 'text';
  return {
    key: `custom_fields.${cf.name}`,
    label: cf.label,
    kind,
    // A custom field can always be cleared; the server says when it is required.
    nullable: true,
    required: cf.required,
    // After the model's own fields, as the form draws them in a section of their own.
    position: Number.MAX_SAFE_INTEGER,
    ...(cf.type === 'select' ? { options: cf.choices.map((c) => ({ value: c, label: c })) } : {}),
    ...(cf.type === 'multiselect' ? { hint: 'Several values separated by commas.' } : {}),
    ...(cf.type === 'json' ? { hint: 'A JSON value.' } : {}),
  };
}

export function customFormValue(cf: CustomFieldColumn, apiValue: unknown): FormValue {
  if (cf.type === 'multiselect') return Array.isArray(apiValue) ? apiValue.map(String).join(', ') : '';
  if (cf.type === 'json') return apiValue === null || apiValue === undefined ? '' : JSON.stringify(apiValue);
  return toFormValue(customFieldAsEditable(cf), apiValue);
}

export function customRequestValue(cf: CustomFieldColumn, v: FormValue): unknown {
  if (cf.type === 'multiselect') {
    const s = typeof v === 'string' ? v : '';
    return s.trim() ? s.split(',').map((x) => x.trim()).filter(Boolean) : null;
  }
  if (cf.type === 'json') {
    const s = typeof v === 'string' ? v.trim() : '';
    if (!s) return null;
    try {
      return JSON.parse(s) as unknown;
    } catch {
      return s;
    }
  }
  return toRequestValue(customFieldAsEditable(cf), v);
}
