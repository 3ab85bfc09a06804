// /objects/<model>/<id>: the generic detail page. Tabs are Overview, the tabs features register for this
// model (app/extensions.ts), Journal and Change log; `?tab=` names the open one.
import { Suspense, useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import { useMe, useModelInfo } from '../../api/hooks.ts';
import type { ApiObject, ModelInfo } from '../../api/types.ts';
import { detailRoute } from '../../app/routes.ts';
import { paths } from '../../app/paths.ts';
import { detailActionsFor, detailTabsFor, detailTitleFor, registerDetailTab, type DetailTabProps } from '../../app/extensions.ts';
import { ErrorState, Loading, NotFound } from '../../components/states.tsx';
import { PageHeader, Button } from '../../components/ui.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { BulkDeleteDialog } from '../list/BulkDeleteDialog.tsx';
import { OverviewTab } from './OverviewTab.tsx';
import { JournalTab } from './JournalTab.tsx';
import { ChangeLogTab } from './ChangeLogTab.tsx';
import { ContactsTab } from './ContactsTab.tsx';

registerDetailTab({ id: 'overview', label: 'Overview', models: '*', order: 0, component: OverviewTab });
registerDetailTab({ id: 'contacts', label: 'Contacts', models: '*', order: 800, visible: ({ model }) => model.has_contacts, component: ContactsTab });
registerDetailTab({ id: 'journal', label: 'Journal', models: '*', order: 900, visible: ({ model }) => model.has_journal, component: JournalTab });
// A change is not itself logged: its page has no Change log.
registerDetailTab({ id: 'changelog', label: 'Change log', models: '*', order: 910, visible: ({ model }) => model.model !== 'core.objectchange', component: ChangeLogTab });

export const objectQueryKey = (path: string, id: string) => ['object', path, id] as const;

type RelatedCounts = { results: Array<{ model: string; count: number }> };

/**
 * How many rows of each model refer to the object (its related-objects answer, which the Overview's Related panel
 * reads too: one call), for the numbers beside tab labels. Undefined until known or when the model has none.
 */
function useTabCounts(model: ModelInfo | undefined, id: string, ready: boolean): Map<string, number> | undefined {
  const related = useQuery({
    queryKey: ['related', model?.path, id],
    queryFn: () => get<RelatedCounts>(`${model!.path}${id}/related/`),
    enabled: ready && !!model?.has_related,
  });
  if (!related.data) return undefined;
  const out = new Map<string, number>();
  // A model that refers to the object through two fields (a device bay's device and installed device) counts by
  // its first: the tab lists the object's own rows.
  for (const r of related.data.results) if (!out.has(r.model)) out.set(r.model, r.count);
  return out;
}

function TabCount({ n }: { n: number }) {
  return <span className={`rounded-full px-1.5 text-xs tabular-nums ${n ? 'bg-slate-200 text-slate-700' : 'bg-slate-100 text-slate-400'}`}>{n}</span>;
}

/**
 * The row of tabs, which scrolls sideways when they do not fit (a device has a dozen at 1,280 px): the open tab is
 * kept in sight, also when the page opens on it by its address (`?tab=changelog`, the last one). `layout` changes
 * with what moves the tabs: the open one, how many there are, and the counts beside their labels (they come later).
 */
function TabRow({ layout, label, onKeyDown, children }: { layout: string; label: string; onKeyDown: (e: KeyboardEvent<HTMLDivElement>) => void; children: ReactNode }) {
  const row = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const tab = row.current?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]');
    if (!row.current || !tab) return;
    // Sideways only: scrollIntoView would move the page too.
    const box = row.current.getBoundingClientRect();
    const at = tab.getBoundingClientRect();
    if (at.left < box.left) row.current.scrollLeft -= box.left - at.left;
    else if (at.right > box.right) row.current.scrollLeft += at.right - box.right;
  }, [layout]);
  return (
    <div ref={row} role="tablist" aria-label={label} className="mb-4 flex gap-1 overflow-x-auto border-b border-slate-200" onKeyDown={onKeyDown}>
      {children}
    </div>
  );
}

export default function DetailPage() {
  const { model: name, id } = detailRoute.useParams();
  const { tab } = detailRoute.useSearch();
  const navigate = useNavigate();
  const toast = useToast();
  const me = useMe();
  const info = useModelInfo(name);
  const model = info.data;
  const object = useQuery({ queryKey: objectQueryKey(model?.path ?? '', id), queryFn: () => get<ApiObject>(`${model!.path}${id}/`), enabled: !!model });
  const counts = useTabCounts(model, id, !!object.data && !!me.data);
  const [deleting, setDeleting] = useState(false);

  if (info.isLoading || (model && object.isLoading)) return <Loading />;
  if (info.error) return <ErrorState error={info.error} />;
  if (!model) return <NotFound />;
  if (object.error) return <ErrorState error={object.error} retry={() => void object.refetch()} />;
  const props: DetailTabProps = { model, object: object.data!, me: me.data! };
  const tabs = detailTabsFor(props);
  const current = tabs.find((t) => t.id === tab) ?? tabs[0]!;
  const Current = current.component;
  const actions = detailActionsFor(model.model);
  const heading = detailTitleFor(model.model, object.data!);

  // Arrow keys move between tabs, as the ARIA tabs pattern expects.
  const onTabKey = (e: KeyboardEvent<HTMLDivElement>) => {
    if (e.key !== 'ArrowRight' && e.key !== 'ArrowLeft') return;
    const i = tabs.indexOf(current);
    const next = tabs[(i + (e.key === 'ArrowRight' ? 1 : tabs.length - 1)) % tabs.length]!;
    void navigate({ to: paths.detail(model.model, id), search: { tab: next.id }, replace: true });
    setTimeout(() => document.getElementById(`tab-${next.id}`)?.focus(), 0);
  };

  return (
    <div>
      <nav aria-label="Breadcrumb" className="mb-1 text-sm text-slate-500">
        <Link to={paths.list(model.model)} className="hover:underline">
          {model.label_plural.charAt(0).toUpperCase() + model.label_plural.slice(1)}
        </Link>
      </nav>
      <PageHeader
        title={heading?.title ?? object.data!.display}
        subtitle={heading ? heading.subtitle : object.data!.numid ? `#${object.data!.numid}` : undefined}
        actions={
          <>
            {actions.map((a) => {
              const Action = a.component;
              return (
                <Suspense key={a.id} fallback={null}>
                  <Action {...props} />
                </Suspense>
              );
            })}
            {model.can.change && !actions.some((a) => a.replacesEdit) ? (
              <Link to={paths.edit(model.model, id)} className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium hover:bg-slate-100">
                Edit
              </Link>
            ) : null}
            {model.can.delete ? (
              <Button variant="danger" onClick={() => setDeleting(true)}>
                Delete
              </Button>
            ) : null}
          </>
        }
      />
      <TabRow layout={`${current.id} ${tabs.length} ${counts ? 'counted' : ''}`} label={`${model.label} sections`} onKeyDown={onTabKey}>
        {tabs.map((t) => (
          <Link
            key={t.id}
            id={`tab-${t.id}`}
            role="tab"
            aria-selected={t.id === current.id}
            aria-controls="tab-panel"
            tabIndex={t.id === current.id ? 0 : -1}
            to={paths.detail(model.model, id)}
            search={{ tab: t.id === 'overview' ? undefined : t.id }}
            replace
            className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium whitespace-nowrap ${t.id === current.id ? 'border-sky-700 text-sky-800' : 'border-transparent text-slate-600 hover:text-slate-900'}`}
          >
            {t.label}
            {t.count && counts ? ' ' : null}
            {t.count && counts ? <TabCount n={t.count.reduce((sum, m) => sum + (counts.get(m) ?? 0), 0)} /> : null}
          </Link>
        ))}
      </TabRow>
      <div id="tab-panel" role="tabpanel" aria-labelledby={`tab-${current.id}`}>
        <Suspense fallback={<Loading />}>
          <Current {...props} />
        </Suspense>
      </div>
      <BulkDeleteDialog
        model={model}
        ids={[id]}
        open={deleting}
        onClose={() => setDeleting(false)}
        onDone={(r) => {
          setDeleting(false);
          if (r.deleted) {
            toast.show({ message: `Deleted ${object.data!.display}.`, tone: 'success' });
            void navigate({ to: paths.list(model.model) });
          } else {
            toast.show({ message: r.skipped[0]?.reason ?? 'Nothing was deleted.', tone: 'error' });
          }
        }}
      />
    </div>
  );
}
