// Picks one or many rows of a list endpoint by typing: a combobox over `<endpoint>?q=` (the endpoints the
// editable-fields descriptors name). Arrow keys move, Enter picks, Escape closes.
import { useId, useState, type KeyboardEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { Brief, Page } from '../../api/types.ts';
import { inputClass } from '../ui.tsx';

interface PickerProps {
  endpoint: string;
  id?: string;
  label: string;
  invalid?: boolean;
  /** Rows already chosen; picking one again is a no-op. */
  exclude?: string[];
  onPick: (row: Brief) => void;
  placeholder?: string;
  /** List filters added to every search (a device's own addresses for its primary IP). */
  params?: Record<string, string>;
}

export function PickerInput({ endpoint, id, label, invalid, exclude = [], onPick, placeholder, params }: PickerProps) {
  const listId = useId();
  const [text, setText] = useState('');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const results = useQuery({
    queryKey: ['picker', endpoint, text, params],
    queryFn: ({ signal }) => get<Page<Brief>>(endpoint, { ...params, q: text || undefined, limit: 20 }, { signal }),
    enabled: open,
    staleTime: 30_000,
  });
  const rows = (results.data?.results ?? []).filter((r) => !exclude.includes(r.id));
  const pick = (row: Brief) => {
    onPick(row);
    setText('');
    setOpen(false);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, rows.length - 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === 'Enter' && open && rows[active]) {
      e.preventDefault();
      pick(rows[active]!);
    } else if (e.key === 'Escape') {
      setOpen(false);
    }
  };
  return (
    <div className="relative">
      <input
        id={id}
        role="combobox"
        aria-label={label}
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-invalid={invalid || undefined}
        aria-activedescendant={open && rows[active] ? `${listId}-${active}` : undefined}
        className={inputClass}
        value={text}
        placeholder={placeholder ?? 'Type to search…'}
        onChange={(e) => {
          setText(e.target.value);
          setActive(0);
          setOpen(true);
        }}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        onKeyDown={onKey}
      />
      {open ? (
        <ul id={listId} role="listbox" aria-label={label} className="absolute z-40 mt-1 max-h-60 w-full overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg">
          {results.isLoading ? <li className="px-3 py-1.5 text-slate-500">Loading…</li> : null}
          {results.error ? <li className="px-3 py-1.5 text-red-700">Could not load the options.</li> : null}
          {!results.isLoading && !results.error && rows.length === 0 ? <li className="px-3 py-1.5 text-slate-500">No matches</li> : null}
          {rows.map((row, i) => (
            <li
              key={row.id}
              id={`${listId}-${i}`}
              role="option"
              aria-selected={i === active}
              className={`cursor-pointer px-3 py-1.5 ${i === active ? 'bg-sky-100' : 'hover:bg-slate-100'}`}
              onMouseDown={(e) => {
                e.preventDefault();
                pick(row);
              }}
            >
              {row.display}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

export function ObjectPicker(props: { endpoint: string; id?: string; label: string; invalid?: boolean; value: Brief | null; nullable: boolean; onChange: (row: Brief | null) => void; params?: Record<string, string> }) {
  const { value, onChange } = props;
  if (value) {
    return (
      <div className="flex items-center gap-2 rounded-md border border-slate-300 bg-white px-2 py-1 text-sm">
        <span className="flex-1 truncate">{value.display}</span>
        <button type="button" className="rounded px-1.5 text-slate-600 hover:bg-slate-100" aria-label={`Clear ${props.label}`} onClick={() => onChange(null)}>
          Change
        </button>
      </div>
    );
  }
  return <PickerInput endpoint={props.endpoint} id={props.id} label={props.label} invalid={props.invalid} onPick={onChange} placeholder={props.nullable ? 'None — type to search…' : undefined} params={props.params} />;
}

export function MultiObjectPicker(props: { endpoint: string; id?: string; label: string; invalid?: boolean; value: Brief[]; onChange: (rows: Brief[]) => void; params?: Record<string, string> }) {
  const { value, onChange } = props;
  return (
    <div className="space-y-1">
      {value.length ? (
        <ul className="flex flex-wrap gap-1" aria-label={`Chosen ${props.label}`}>
          {value.map((row) => (
            <li key={row.id} className="inline-flex items-center gap-1 rounded bg-slate-100 px-2 py-0.5 text-sm">
              {row.display}
              <button type="button" aria-label={`Remove ${row.display}`} className="text-slate-500 hover:text-slate-900" onClick={() => onChange(value.filter((r) => r.id !== row.id))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <PickerInput endpoint={props.endpoint} id={props.id} label={props.label} invalid={props.invalid} exclude={value.map((r) => r.id)} onPick={(row) => onChange([...value, row])} params={props.params} />
    </div>
  );
}

/**
 * Rows of several models in one list (a cable end: interfaces, front ports or rear ports): a kind to search in,
 * then a picker over that kind's endpoint. Each chosen row keeps its `object_type`.
 */
export function GenericObjectPicker(props: {
  id?: string;
  label: string;
  invalid?: boolean;
  models: Array<{ model: string; label: string; endpoint: string }>;
  value: Brief[];
  onChange: (rows: Brief[]) => void;
  /** Filters added to every search (free ports only, say). */
  params?: Record<string, string>;
}) {
  const { value, onChange, models } = props;
  const [kind, setKind] = useState(models[0]?.model ?? '');
  const chosen = models.find((m) => m.model === kind) ?? models[0];
  const labelOf = (type: unknown) => models.find((m) => m.model === type)?.label ?? '';
  const key = (r: Brief) => `${String(r.object_type)}:${r.id}`;
  return (
    <div className="space-y-1">
      {value.length ? (
        <ul className="flex flex-wrap gap-1" aria-label={`Chosen ${props.label}`}>
          {value.map((row) => (
            <li key={key(row)} className="inline-flex items-center gap-1 rounded bg-slate-100 px-2 py-0.5 text-sm">
              <span className="text-xs text-slate-500">{labelOf(row.object_type)}</span> {row.display}
              <button type="button" aria-label={`Remove ${row.display}`} className="text-slate-500 hover:text-slate-900" onClick={() => onChange(value.filter((r) => key(r) !== key(row)))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <div className="grid grid-cols-[8.5rem_minmax(0,1fr)] gap-2">
        <select aria-label={`Kind of ${props.label}`} className={inputClass} value={chosen?.model ?? ''} onChange={(e) => setKind(e.target.value)}>
          {models.map((m) => (
            <option key={m.model} value={m.model}>
              {m.label.charAt(0).toUpperCase() + m.label.slice(1)}
            </option>
          ))}
        </select>
        <div>
          {chosen ? (
            <PickerInput
              key={chosen.model}
              endpoint={chosen.endpoint}
              id={props.id}
              label={props.label}
              invalid={props.invalid}
              exclude={value.filter((r) => r.object_type === chosen.model).map((r) => r.id)}
              params={props.params}
              placeholder={`Type to search ${chosen.label}s…`}
              onPick={(row) => onChange([...value, { ...row, object_type: chosen.model }])}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}
