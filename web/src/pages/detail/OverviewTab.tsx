// Overview: every list field and custom field of the object, labelled as the list-fields catalog names them, and
// what refers to it (RelatedPanel), and the panels features add for the model (app/extensions.ts).
import { useChoices, useListFields } from '../../api/hooks.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Suspense } from 'react';
import { cellRendererFor, overviewHiddenFor, overviewPanelsFor } from '../../app/extensions.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { Value } from '../../components/Value.tsx';
import { allColumns, columnValue } from '../list/columns.ts';
import { RelatedPanel } from './RelatedPanel.tsx';

export function OverviewTab(props: DetailTabProps) {
  const { model, object } = props;
  const panels = overviewPanelsFor(model.model);
  const fields = useListFields(model.path);
  // Vocabulary fields (an interface's type) carry the vocabulary's name: its labels come from the choices catalog.
  const vocabularies = useChoices();
  if (fields.isLoading) return <Loading />;
  if (fields.error) return <ErrorState error={fields.error} retry={() => void fields.refetch()} />;
  const hidden = new Set(overviewHiddenFor(model.model));
  const columns = allColumns(fields.data!).filter((c) => !hidden.has(c.key));
  const plain = columns.filter((c) => !c.custom);
  const custom = columns.filter((c) => c.custom);
  const row = (c: (typeof columns)[number]) => {
    const Custom = cellRendererFor(model.model, c.key);
    const value = columnValue(object, c.key);
    return (
      <div key={c.key} className="grid grid-cols-1 gap-1 px-4 py-2 sm:grid-cols-3 sm:gap-4" data-overview-field={c.key}>
        <dt className="text-sm font-medium text-slate-600">{c.label}</dt>
        <dd className="text-sm text-slate-900 sm:col-span-2">{Custom ? <Custom row={object} value={value} /> : <Value value={value} kind={c.kind} related={c.related} options={c.options ?? (c.choices ? vocabularies.data?.[c.choices] : undefined)} />}</dd>
      </div>
    );
  };
  return (
    <div className="grid gap-4 xl:grid-cols-2">
      <section aria-labelledby="overview-fields" className="rounded-lg border border-slate-200 bg-white">
        <h2 id="overview-fields" className="border-b border-slate-200 px-4 py-2 font-semibold">
          {model.label.charAt(0).toUpperCase() + model.label.slice(1)}
        </h2>
        <dl className="divide-y divide-slate-100">{plain.map(row)}</dl>
      </section>
      {custom.length || model.has_related || panels.length ? (
        <div className="grid content-start gap-4">
          {model.has_related ? <RelatedPanel model={model} object={object} /> : null}
          {panels.map((p) => {
            const Panel = p.component;
            return (
              <Suspense key={p.id} fallback={null}>
                <Panel {...props} />
              </Suspense>
            );
          })}
          {custom.length ? (
            <section aria-labelledby="overview-custom" className="self-start rounded-lg border border-slate-200 bg-white">
              <h2 id="overview-custom" className="border-b border-slate-200 px-4 py-2 font-semibold">
                Custom fields
              </h2>
              <dl className="divide-y divide-slate-100">{custom.map(row)}</dl>
            </section>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
