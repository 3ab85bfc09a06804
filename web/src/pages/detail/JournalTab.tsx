// Journal: notes people write on an object, newest first, with a form to add one.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, get, post } from '../../api/client.ts';
import type { ApiObject, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Badge, Button, inputClass } from '../../components/ui.tsx';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { formatDateTime } from '../../components/Value.tsx';

const KINDS = ['info', 'success', 'warning', 'danger'] as const;
const TONES = { info: 'sky', success: 'green', warning: 'amber', danger: 'red' } as const;

export function JournalTab({ model, object }: DetailTabProps) {
  const client = useQueryClient();
  const key = ['journal', model.model, object.id];
  const entries = useQuery({ queryKey: key, queryFn: () => get<Page>('/api/journal-entries/', { object_type: model.model, object_id: object.id, ordering: '-created', limit: 100 }) });
  const [kind, setKind] = useState<(typeof KINDS)[number]>('info');
  const [comments, setComments] = useState('');
  const add = useMutation({
    mutationFn: () => post<ApiObject>('/api/journal-entries/', { object_type: model.model, object_id: object.id, kind, comments }),
    onSuccess: () => {
      setComments('');
      void client.invalidateQueries({ queryKey: key });
    },
  });
  const fieldErrors = add.error instanceof ApiError ? add.error.fieldErrors : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };
  return (
    <div className="grid gap-4 lg:grid-cols-3">
      <form onSubmit={submit} className="space-y-3 self-start rounded-lg border border-slate-200 bg-white p-4" aria-label="Add a journal entry">
        <h2 className="font-semibold">Add an entry</h2>
        <FieldShell id="journal-kind" label="Kind" errors={fieldErrors.kind}>
          <select id="journal-kind" className={inputClass} value={kind} onChange={(e) => setKind(e.target.value as (typeof KINDS)[number])}>
            {KINDS.map((k) => (
              <option key={k} value={k}>
                {k.charAt(0).toUpperCase() + k.slice(1)}
              </option>
            ))}
          </select>
        </FieldShell>
        <FieldShell id="journal-comments" label="Comments" errors={fieldErrors.comments}>
          <textarea id="journal-comments" className={`${inputClass} min-h-24`} value={comments} aria-invalid={!!fieldErrors.comments || undefined} onChange={(e) => setComments(e.target.value)} />
        </FieldShell>
        {add.error && !Object.keys(fieldErrors).length ? <ErrorState error={add.error} /> : null}
        <Button type="submit" variant="primary" disabled={add.isPending || !comments.trim()}>
          {add.isPending ? 'Saving…' : 'Add entry'}
        </Button>
      </form>
      <div className="lg:col-span-2">
        {entries.isLoading ? <Loading /> : entries.error ? <ErrorState error={entries.error} retry={() => void entries.refetch()} /> : !entries.data?.results.length ? <Empty title="No journal entries yet" /> : (
          <ol className="space-y-2">
            {entries.data.results.map((e) => {
              const k = (typeof e.kind === 'string' && e.kind in TONES ? e.kind : 'info') as keyof typeof TONES;
              const author = e.author as { display?: string } | null;
              return (
                <li key={e.id} className="rounded-lg border border-slate-200 bg-white p-3">
                  <div className="mb-1 flex items-center gap-2 text-xs text-slate-500">
                    <Badge tone={TONES[k]}>{k}</Badge>
                    <span>{author?.display ?? 'system'}</span>
                    <span>{typeof e.created === 'string' ? formatDateTime(e.created) : ''}</span>
                  </div>
                  <p className="text-sm whitespace-pre-wrap">{String(e.comments ?? '')}</p>
                </li>
              );
            })}
          </ol>
        )}
      </div>
    </div>
  );
}
