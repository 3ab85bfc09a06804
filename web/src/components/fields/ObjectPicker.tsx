// Picks one or many rows of a list endpoint by typing: a combobox over `<endpoint>?q=` (the endpoints the
// editable-fields descriptors name), 20 rows at a time with "Show more" (or scrolling to the end) for the next 20.
// Arrow keys move, Enter picks, Escape closes. A model whose rows belong to a parent (an interface to its device:
// the descriptor's `scope`) is picked as NetBox's forms do: the parent first, then among its rows only.
import { useId, useState, type KeyboardEvent, type UIEvent } from 'react';
import { useInfiniteQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { Brief, Page } from '../../api/types.ts';
import { inputClass } from '../ui.tsx';

/** Rows asked for at a time. */
export const PICKER_PAGE = 20;

/** The parent a picker's rows belong to (from the editable-fields descriptor): chosen first, it narrows the list. */
export interface PickerScope {
  key: string;
  label: string;
  object_model: string;
  endpoint: string;
  /** The list filter that takes the parent's id (`device_id`). */
  filter: string;
}

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
  const results = useInfiniteQuery({
    queryKey: ['picker', endpoint, text, params],
    queryFn: ({ signal, pageParam }) => get<Page<Brief>>(endpoint, { ...params, q: text || undefined, limit: PICKER_PAGE, offset: pageParam || undefined }, { signal }),
    initialPageParam: 0,
    getNextPageParam: (last, pages) => {
      const seen = pages.reduce((n, p) => n + p.results.length, 0);
      return seen < last.count && last.results.length > 0 ? seen : undefined;
    },
    enabled: open,
    staleTime: 30_000,
  });
  const pages = results.data?.pages ?? [];
  const total = pages[0]?.count ?? 0;
  const shown = pages.reduce((n, p) => n + p.results.length, 0);
  const rows = pages.flatMap((p) => p.results).filter((r) => !exclude.includes(r.id));
  const more = results.hasNextPage;
  // The options the keyboard walks: the rows, then "Show more" while there are more.
  const optionCount = rows.length + (more ? 1 : 0);
  const loadMore = () => {
    if (more && !results.isFetchingNextPage) void results.fetchNextPage();
  };
  const pick = (row: Brief) => {
    onPick(row);
    setText('');
    setOpen(false);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      setOpen(true);
      setActive((a) => Math.min(a + 1, optionCount - 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      setActive((a) => Math.max(a - 1, 0));
    } else if (e.key === 'Enter' && open && active === rows.length && more) {
      e.preventDefault();
      loadMore();
    } else if (e.key === 'Enter' && open && rows[active]) {
      e.preventDefault();
      pick(rows[active]!);
    } else if (e.key === 'Escape') {
      setOpen(false);
    }
  };
  // Scrolling to the end of the list reads the next rows, as "Show more" does.
  const onScroll = (e: UIEvent<HTMLUListElement>) => {
    const el = e.currentTarget;
    if (el.scrollTop + el.clientHeight >= el.scrollHeight - 8) loadMore();
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
        aria-activedescendant={open && active < optionCount ? `${listId}-${active}` : undefined}
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
        <ul id={listId} role="listbox" aria-label={label} onScroll={onScroll} className="absolute z-40 mt-1 max-h-60 w-full min-w-72 overflow-y-auto rounded-md border border-slate-200 bg-white py-1 text-sm shadow-lg">
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
          {more ? (
            <li
              id={`${listId}-${rows.length}`}
              role="option"
              aria-selected={active === rows.length}
              data-show-more
              className={`cursor-pointer border-t border-slate-100 px-3 py-1.5 text-sky-700 ${active === rows.length ? 'bg-sky-100' : 'hover:bg-slate-100'}`}
              onMouseDown={(e) => {
                e.preventDefault();
                loadMore();
              }}
            >
              {results.isFetchingNextPage ? 'Loading…' : `Show more (${shown} of ${total.toLocaleString('en')} shown)`}
            </li>
          ) : null}
        </ul>
      ) : null}
    </div>
  );
}

/**
 * The parent field of a scoped picker (the Device of an interface picker): optional, so a row can still be found
 * by typing `device name` + `component name` in the picker itself.
 */
function ScopeField({ scope, label, value, onChange }: { scope: PickerScope; label: string; value: Brief | null; onChange: (row: Brief | null) => void }) {
  const name = `${scope.label} of ${label}`;
  if (value) {
    return (
      <div className="flex items-center gap-2 rounded-md border border-slate-300 bg-slate-50 px-2 py-1 text-sm" data-scope={scope.key}>
        <span className="text-xs text-slate-500">{scope.label}</span>
        <span className="flex-1 truncate font-medium">{value.display}</span>
        <button type="button" className="rounded px-1.5 text-slate-600 hover:bg-slate-100" aria-label={`Clear ${name}`} onClick={() => onChange(null)}>
          ×
        </button>
      </div>
    );
  }
  return <PickerInput endpoint={scope.endpoint} label={name} onPick={onChange} placeholder={`${scope.label}…`} />;
}

/** A picker over `endpoint`, after an optional parent field when the model has a scope. */
function ScopedPickerInput(props: PickerProps & { scope?: PickerScope; parentPlaceholder?: (parent: Brief) => string }) {
  const { scope, parentPlaceholder, ...picker } = props;
  const [parent, setParent] = useState<Brief | null>(null);
  if (!scope) return <PickerInput {...picker} />;
  const params = parent ? { ...picker.params, [scope.filter]: parent.id } : picker.params;
  return (
    <div className="space-y-1.5" data-scoped-picker={scope.key}>
      <ScopeField scope={scope} label={picker.label} value={parent} onChange={setParent} />
      <PickerInput
        // A new parent starts a new search: the text typed for the last one would rarely fit.
        key={parent?.id ?? ''}
        {...picker}
        params={params}
        placeholder={parent ? (parentPlaceholder?.(parent) ?? 'Type a name…') : (picker.placeholder ?? `Name, or ${scope.label.toLowerCase()} + name…`)}
      />
    </div>
  );
}

export function ObjectPicker(props: {
  endpoint: string;
  id?: string;
  label: string;
  invalid?: boolean;
  value: Brief | null;
  nullable: boolean;
  onChange: (row: Brief | null) => void;
  params?: Record<string, string>;
  /** The parent its rows belong to (a device for an interface): picked first, it narrows the list. */
  scope?: PickerScope;
}) {
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
  return (
    <ScopedPickerInput
      endpoint={props.endpoint}
      id={props.id}
      label={props.label}
      invalid={props.invalid}
      onPick={onChange}
      placeholder={props.scope ? undefined : props.nullable ? 'None — type to search…' : undefined}
      params={props.params}
      scope={props.scope}
    />
  );
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
  models: Array<{ model: string; label: string; endpoint: string; scope?: PickerScope }>;
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
      <div className="grid grid-cols-[8.5rem_minmax(0,1fr)] items-start gap-2">
        <select aria-label={`Kind of ${props.label}`} className={inputClass} value={chosen?.model ?? ''} onChange={(e) => setKind(e.target.value)}>
          {models.map((m) => (
            <option key={m.model} value={m.model}>
              {m.label.charAt(0).toUpperCase() + m.label.slice(1)}
            </option>
          ))}
        </select>
        <div>
          {chosen ? (
            <ScopedPickerInput
              key={chosen.model}
              scope={chosen.scope}
              parentPlaceholder={(parent) => `${chosen.label.charAt(0).toUpperCase() + chosen.label.slice(1)}s of ${parent.display}…`}
              endpoint={chosen.endpoint}
              id={props.id}
              label={props.label}
              invalid={props.invalid}
              exclude={value.filter((r) => r.object_type === chosen.model).map((r) => r.id)}
              params={props.params}
              placeholder={chosen.scope ? `${chosen.label.charAt(0).toUpperCase() + chosen.label.slice(1)}: name, or ${chosen.scope.label.toLowerCase()} and name…` : `Type to search ${chosen.label}s…`}
              onPick={(row) => onChange([...value, { ...row, object_type: chosen.model }])}
            />
          ) : null}
        </div>
      </div>
    </div>
  );
}
