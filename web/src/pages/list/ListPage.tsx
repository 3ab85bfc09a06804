// /objects/<model>: the generic list page for every model with a list endpoint.
import { useEffect, useState, type MouseEvent } from 'react';
import { createPortal } from 'react-dom';
import { Link, useNavigate } from '@tanstack/react-router';
import { useModelInfo } from '../../api/hooks.ts';
import { listRoute } from '../../app/routes.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState, Loading, NotFound } from '../../components/states.tsx';
import { PageHeader } from '../../components/ui.tsx';
import { ModelList, type ListState } from './ModelList.tsx';
import { ImportDialog } from './ImportDialog.tsx';

/**
 * "Skip to results": the first Tab stop of a list page (drawn into the shell's skip-link slot, ahead of "Skip to
 * content"), which moves focus to the first row's link past the navigation and the filters; to the results area
 * when there is no row.
 */
function SkipToResults() {
  const [slot, setSlot] = useState<HTMLElement | null>(null);
  useEffect(() => setSlot(document.getElementById('skip-links')), []);
  if (!slot) return null;
  const jump = (e: MouseEvent<HTMLAnchorElement>) => {
    e.preventDefault();
    const results = document.querySelector<HTMLElement>('#main [data-list-results]');
    const first = results?.querySelector<HTMLElement>('tbody tr a[href]') ?? results;
    first?.focus();
    first?.scrollIntoView({ block: 'nearest' });
  };
  return createPortal(
    <a href="#main" onClick={jump} className="sr-only focus:not-sr-only focus:absolute focus:z-50 focus:bg-white focus:p-2">
      Skip to results
    </a>,
    slot,
  );
}

export default function ListPage() {
  const { model: name } = listRoute.useParams();
  const search = listRoute.useSearch();
  const navigate = useNavigate();
  const info = useModelInfo(name);
  const [importing, setImporting] = useState(false);
  if (info.isLoading) return <Loading />;
  if (info.error) return <ErrorState error={info.error} retry={() => void info.refetch()} />;
  if (!info.data) return <NotFound />;
  const model = info.data;
  const onState = (next: ListState) => {
    const clean = Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined && v !== ''));
    void navigate({ to: paths.list(model.model), search: clean });
  };
  return (
    <div>
      <SkipToResults />
      <PageHeader
        title={model.label_plural.charAt(0).toUpperCase() + model.label_plural.slice(1)}
        actions={
          model.can.add ? (
            <div className="flex gap-2">
              <button type="button" onClick={() => setImporting(true)} className="rounded-md border border-slate-300 px-3 py-1.5 text-sm font-medium hover:bg-slate-50">
                Import
              </button>
              <Link to={paths.create(model.model)} className="rounded-md bg-sky-700 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-800">
                Add {model.label}
              </Link>
            </div>
          ) : null
        }
      />
      {model.can.add ? <ImportDialog model={model} open={importing} onClose={() => setImporting(false)} /> : null}
      <ModelList key={model.model} model={model} state={search} onState={onState} />
    </div>
  );
}
