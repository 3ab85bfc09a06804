// Bulk delete in two steps: a dry run shows what would go (and what a cascade would take with it, and which
// rows are kept because they are in use), then the real call.
import { useEffect, useState } from 'react';
import { useMutation, useQuery } from '@tanstack/react-query';
import { post } from '../../api/client.ts';
import type { BulkDeleteResult, ModelInfo } from '../../api/types.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { ErrorState, Loading } from '../../components/states.tsx';

export function BulkDeleteDialog({ model, ids, open, onClose, onDone }: { model: ModelInfo; ids: string[]; open: boolean; onClose: () => void; onDone: (r: BulkDeleteResult) => void }) {
  const [confirmed, setConfirmed] = useState(false);
  useEffect(() => setConfirmed(false), [open]);
  const preview = useQuery({
    queryKey: ['bulk-delete-dry-run', model.path, ids],
    queryFn: () => post<BulkDeleteResult>(`${model.path}bulk-delete/`, { ids, dry_run: true }),
    enabled: open && ids.length > 0,
    gcTime: 0,
  });
  const run = useMutation({ mutationFn: () => post<BulkDeleteResult>(`${model.path}bulk-delete/`, { ids }), onSuccess: onDone });
  const r = preview.data;
  const count = r?.deleted_ids.length ?? 0;
  return (
    <Dialog
      open={open}
      title={`Delete ${ids.length} ${ids.length === 1 ? model.label : model.label_plural}?`}
      onClose={onClose}
      footer={
<DialogActions variant="danger" onCancel={onClose} onConfirm={() => run.mutate()} confirmLabel={`Delete ${count}`} busyLabel="Deleting…" pending={run.isPending} disabled={!r || count === 0 || !confirmed} />
      }
    >
      {preview.isLoading ? <Loading label="Checking what would be deleted…" /> : null}
      {preview.error ? <ErrorState error={preview.error} retry={() => void preview.refetch()} /> : null}
      {run.error ? <ErrorState error={run.error} /> : null}
      {r ? (
        <div className="space-y-3 text-sm" data-testid="bulk-delete-impact">
          <p>
            <strong>{count}</strong> {count === 1 ? model.label : model.label_plural} will be deleted.
          </p>
          {r.impact?.length ? (
            <div>
              <p className="font-medium">Also removed with them:</p>
              <ul className="ml-5 list-disc">
                {r.impact.map((i) => (
                  <li key={i.label}>
                    {i.count} {i.label}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {r.skipped.length ? (
            <div>
              <p className="font-medium text-amber-800">Kept because they are in use ({r.skipped.length}):</p>
              <ul className="ml-5 list-disc">
                {r.skipped.map((s) => (
                  <li key={s.id}>
                    {s.name}: {s.reason}
                  </li>
                ))}
              </ul>
            </div>
          ) : null}
          {count > 0 ? (
            <label className="flex items-center gap-2 font-medium">
              <input type="checkbox" checked={confirmed} onChange={(e) => setConfirmed(e.target.checked)} />I understand this cannot be undone.
            </label>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  );
}
