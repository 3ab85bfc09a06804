// A change's own page: the fields it wrote, by label, before and after (a created object's values, a deleted one's
// last values, an update's changed fields), drawn as the changed object's Change log tab draws them.
import type { DetailTabProps } from '../../app/extensions.ts';
import { Empty, Loading } from '../../components/states.tsx';
import { ChangeTable, changedFields, useChangeCells } from '../../pages/detail/ChangeLogTab.tsx';

type Snapshot = Record<string, unknown> | null;

const blank = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);

const SUMMARY: Record<string, string> = {
  create: 'Created with these values.',
  update: 'These fields changed.',
  delete: 'Deleted; these were its values.',
};

export default function ChangeFieldsTab({ object }: DetailTabProps) {
  const all = changedFields((object.before ?? null) as Snapshot, (object.after ?? null) as Snapshot);
  const cells = useChangeCells(typeof object.object_type === 'string' ? object.object_type : undefined, all);
  if (cells.isLoading) return <Loading />;
  // A whole record (create, delete) keeps its ids and bookkeeping too: only the fields its list shows, set, in the
  // list's order.
  const only = object.action === 'create' ? 'after' : object.action === 'delete' ? 'before' : undefined;
  const changed = only ? all.filter((f) => cells.shown(f.key) && !blank(f[only])).sort((a, b) => cells.position(a.key) - cells.position(b.key)) : all;
  if (!changed.length) return <Empty title="No field values were recorded" />;
  return (
    <section aria-label="Fields" className="rounded-lg border border-slate-200 bg-white p-3 text-sm">
      <p className="text-slate-600">{SUMMARY[String(object.action)] ?? ''}</p>
      <ChangeTable changed={changed} cells={cells} only={only} />
    </section>
  );
}
