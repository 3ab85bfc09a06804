// Quick search (`q`) and field filters. Filters are the list endpoint's own query parameters (`name__ic`,
// `status`, `site`), kept in the page URL so a filtered list can be bookmarked and shared. A relation is picked
// from the related model's list endpoint (the model /api/list-fields/ names), not typed as an id.
import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { ApiObject, ListFields, Option } from '../../api/types.ts';
import { useChoices, useModels } from '../../api/hooks.ts';
import { ObjectPicker } from '../../components/fields/ObjectPicker.tsx';
import { Button, inputClass } from '../../components/ui.tsx';

export const RESERVED = new Set(['limit', 'offset', 'ordering', 'q']);

interface Props {
  fields: ListFields;
  filters: Record<string, string>;
  q: string;
  onChange: (next: { q?: string; filters: Record<string, string> }) => void;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * A filter chip's value as people read it: a related object by its display (fetched when the URL came with an
 * id: a bookmark, a link from another page), a choice by its label, anything else as typed.
 */
function ChipValue({ value, endpoint, options }: { value: string; endpoint: string | undefined; options: Option[] | undefined }) {
  const related = endpoint !== undefined && UUID.test(value);
  const object = useQuery({ queryKey: ['object', endpoint, value], queryFn: () => get<ApiObject>(`${endpoint!}${value}/`), enabled: related, staleTime: 60_000 });
  if (related) return <>{object.data?.display ?? (object.isLoading ? '…' : 'an object you cannot see')}</>;
  return <>{options?.find((o) => o.value === value)?.label ?? value}</>;
}

/** The parameter a field is filtered with: text contains, relations by id, others exact. */
function paramFor(kind: string, key: string): string {
  return kind === 'text' || kind === 'longtext' ? `${key}__ic` : key;
}

export function FilterBar({ fields, filters, q, onChange }: Props) {
  const [text, setText] = useState(q);
  const [fieldKey, setFieldKey] = useState('');
  const [value, setValue] = useState('');
  const choices = useChoices();
  const models = useModels();
  // Names of the rows picked in this page view, so their chips say "Site: DC1" rather than an id.
  const [picked, setPicked] = useState<Record<string, string>>({});
  const filterable = fields.fields.filter((f) => !['objects', 'auto', 'longtext', 'color'].includes(f.kind));
  const chosen = filterable.find((f) => f.key === fieldKey);
  const labelOf = (param: string) => {
    const base = param.split('__')[0]!;
    const f = fieldOf(param);
    const op = param.includes('__ic') ? ' contains' : param.includes('__n') ? ' is not' : '';
    return `${f?.label ?? base}${op}`;
  };
  /** The field a parameter filters (`device_id` and `device__n` filter `device`). */
  const fieldOf = (param: string) => {
    const base = param.split('__')[0]!;
    return fields.fields.find((x) => x.key === base) ?? (base.endsWith('_id') ? fields.fields.find((x) => x.key === base.slice(0, -3)) : undefined);
  };
  const endpointOf = (param: string) => {
    const f = fieldOf(param);
    return f?.related ? models.data?.find((m) => m.model === f.related)?.path : undefined;
  };
  const optionsOf = (param: string) => {
    const f = fieldOf(param);
    return f?.options ?? (f?.choices ? choices.data?.[f.choices] : undefined);
  };
  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    onChange({ q: text.trim() || undefined, filters });
  };
  const addFilter = (e: FormEvent) => {
    e.preventDefault();
    if (!chosen || value === '') return;
    onChange({ q: q || undefined, filters: { ...filters, [paramFor(chosen.kind, chosen.key)]: value } });
    setValue('');
    setFieldKey('');
  };
  const relatedEndpoint = chosen?.kind === 'object' && chosen.related ? models.data?.find((m) => m.model === chosen.related)?.path : undefined;
  const options = chosen?.options ?? (chosen?.choices ? choices.data?.[chosen.choices] : undefined);
  return (
    <div className="mb-3 space-y-2">
      <div className="flex flex-wrap items-end gap-2">
        <form onSubmit={submitSearch} role="search" className="flex gap-1">
          <label className="sr-only" htmlFor="list-q">
            Search this list
          </label>
          <input id="list-q" type="search" className={`${inputClass} w-56`} placeholder="Search this list…" value={text} onChange={(e) => setText(e.target.value)} />
          <Button type="submit">Search</Button>
        </form>
        <form onSubmit={addFilter} className="flex flex-wrap items-center gap-1" aria-label="Add a filter">
          <label className="sr-only" htmlFor="filter-field">
            Filter field
          </label>
          <select id="filter-field" className={`${inputClass} w-44`} value={fieldKey} onChange={(e) => { setFieldKey(e.target.value); setValue(''); }}>
            <option value="">Filter by…</option>
            {filterable.map((f) => (
              <option key={f.key} value={f.key}>
                {f.label}
              </option>
            ))}
          </select>
          {chosen ? (
            <>
              <label className="sr-only" htmlFor="filter-value">
                Filter value
              </label>
              {relatedEndpoint ? (
                <div className="w-56">
                  <ObjectPicker
                    id="filter-value"
                    endpoint={relatedEndpoint}
                    label={`${chosen.label} to filter by`}
                    nullable={false}
                    value={null}
                    onChange={(row) => {
                      if (!row) return;
                      const param = paramFor(chosen.kind, chosen.key);
                      setPicked({ ...picked, [`${param}=${row.id}`]: row.display });
                      onChange({ q: q || undefined, filters: { ...filters, [param]: row.id } });
                      setFieldKey('');
                    }}
                  />
                </div>
              ) : chosen.kind === 'bool' ? (
                <select id="filter-value" className={`${inputClass} w-28`} value={value} onChange={(e) => setValue(e.target.value)}>
                  <option value="">—</option>
                  <option value="true">Yes</option>
                  <option value="false">No</option>
                </select>
              ) : options ? (
                <select id="filter-value" className={`${inputClass} w-44`} value={value} onChange={(e) => setValue(e.target.value)}>
                  <option value="">—</option>
                  {options.map((o) => (
                    <option key={o.value} value={o.value}>
                      {o.label}
                    </option>
                  ))}
                </select>
              ) : (
                <input
                  id="filter-value"
                  className={`${inputClass} w-44`}
                  placeholder={chosen.kind === 'object' ? 'id or slug' : chosen.kind === 'text' ? 'contains…' : 'value'}
                  value={value}
                  onChange={(e) => setValue(e.target.value)}
                />
              )}
              {relatedEndpoint ? null : (
                <Button type="submit" disabled={value === ''}>
                  Add filter
                </Button>
              )}
            </>
          ) : null}
        </form>
      </div>
      {Object.keys(filters).length || q ? (
        <ul className="flex flex-wrap items-center gap-1 text-sm" aria-label="Active filters">
          {q ? (
            <li className="inline-flex items-center gap-1 rounded-full bg-sky-50 px-2 py-0.5 ring-1 ring-sky-200">
              Search: {q}
              <button type="button" aria-label="Remove the search" onClick={() => { setText(''); onChange({ filters }); }} className="text-slate-500 hover:text-slate-900">
                ×
              </button>
            </li>
          ) : null}
          {Object.entries(filters).map(([k, v]) => (
            <li key={k} className="inline-flex items-center gap-1 rounded-full bg-sky-50 px-2 py-0.5 ring-1 ring-sky-200">
              {labelOf(k)}: {picked[`${k}=${v}`] ?? <ChipValue value={v} endpoint={endpointOf(k)} options={optionsOf(k)} />}
              <button
                type="button"
                aria-label={`Remove the filter ${labelOf(k)}`}
                onClick={() => onChange({ q: q || undefined, filters: Object.fromEntries(Object.entries(filters).filter(([x]) => x !== k)) })}
                className="text-slate-500 hover:text-slate-900"
              >
                ×
              </button>
            </li>
          ))}
          <li>
            <button type="button" className="text-sky-700 underline" onClick={() => { setText(''); onChange({ filters: {} }); }}>
              Clear all
            </button>
          </li>
        </ul>
      ) : null}
    </div>
  );
}
