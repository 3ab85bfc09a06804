// Preferences → API tokens: your tokens, a form to create one for a tenant (optionally read only) whose key is
// shown once, and revoke.
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, get, post } from '../../api/client.ts';
import { useMe } from '../../api/hooks.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import { Dialog } from '../../components/Dialog.tsx';
import { ErrorState } from '../../components/states.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { Badge, Button, PageHeader, inputClass } from '../../components/ui.tsx';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { useToast } from '../../components/Toasts.tsx';

const KEY = ['tokens'];

export default function TokensPage() {
  const me = useMe();
  const client = useQueryClient();
  const toast = useToast();
  const tokens = useQuery({ queryKey: KEY, queryFn: () => get<Page>('/api/users/tokens/', { limit: 200 }) });
  const [tenant, setTenant] = useState(me.data?.active_tenant?.id ?? '');
  const [readOnly, setReadOnly] = useState(false);
  const [description, setDescription] = useState('');
  const [expires, setExpires] = useState('');
  const [created, setCreated] = useState<string | null>(null);
  const [revoking, setRevoking] = useState<ApiObject | null>(null);
  const create = useMutation({
    mutationFn: () =>
      post<ApiObject & { key: string }>('/api/users/tokens/', {
        tenant: tenant || undefined,
        read_only: readOnly,
        description,
        ...(expires ? { expires: new Date(expires).toISOString() } : {}),
      }),
    onSuccess: (t) => {
      setCreated(t.key);
      setDescription('');
      setExpires('');
      void client.invalidateQueries({ queryKey: KEY });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => del(`/api/users/tokens/${id}/`),
    onSuccess: () => {
      setRevoking(null);
      toast.show({ message: 'Token revoked.', tone: 'success' });
      void client.invalidateQueries({ queryKey: KEY });
    },
  });
  const errors = create.error instanceof ApiError ? create.error.fieldErrors : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <div>
      <PageHeader title="API tokens" subtitle="Tokens let scripts use the API as you, in one tenant. Send them as “Authorization: Token <key>”." />
      <div className="grid gap-6 lg:grid-cols-3">
        <form onSubmit={submit} className="space-y-3 self-start rounded-lg border border-slate-200 bg-white p-4" aria-label="Create a token">
          <h2 className="font-semibold">Create a token</h2>
          <FieldShell id="token-tenant" label="Tenant" errors={errors.tenant}>
            <select id="token-tenant" className={inputClass} value={tenant} onChange={(e) => setTenant(e.target.value)} aria-invalid={!!errors.tenant || undefined}>
              <option value="">Active tenant</option>
              {me.data?.tenants.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </FieldShell>
          <label className="flex items-center gap-2 text-sm font-medium">
            <input type="checkbox" checked={readOnly} onChange={(e) => setReadOnly(e.target.checked)} />
            Read only
          </label>
          <FieldShell id="token-description" label="Description" errors={errors.description}>
            <input id="token-description" className={inputClass} value={description} onChange={(e) => setDescription(e.target.value)} aria-invalid={!!errors.description || undefined} />
          </FieldShell>
          <FieldShell id="token-expires" label="Expires" hint="Leave empty for a token that does not expire." errors={errors.expires}>
            <input id="token-expires" type="datetime-local" className={inputClass} value={expires} onChange={(e) => setExpires(e.target.value)} aria-invalid={!!errors.expires || undefined} />
          </FieldShell>
          {create.error && !Object.keys(errors).length ? <ErrorState error={create.error} /> : null}
          <Button type="submit" variant="primary" disabled={create.isPending}>
            {create.isPending ? 'Creating…' : 'Create token'}
          </Button>
        </form>
        <div className="lg:col-span-2">
          <DataTable
            testId="tokens"
            caption="Your API tokens"
            rows={tokens.data?.results}
            rowKey={(t) => t.id}
            loading={tokens.isLoading}
            error={tokens.error}
            retry={() => void tokens.refetch()}
            empty="You have no tokens"
            columns={[
              { key: 'key', header: 'Key', cell: (t) => `${String(t.key_prefix)}…`, className: 'font-mono' },
              { key: 'tenant', header: 'Tenant', cell: (t) => (t.tenant as Brief | null)?.display ?? '—' },
              { key: 'access', header: 'Access', cell: (t) => (t.read_only ? <Badge tone="amber">Read only</Badge> : <Badge tone="green">Read & write</Badge>) },
              { key: 'description', header: 'Description', cell: (t) => String(t.description ?? '') },
              { key: 'last_used', header: 'Last used', cell: (t) => (typeof t.last_used === 'string' ? formatDateTime(t.last_used) : 'Never') },
              {
                key: 'actions',
                header: <span className="sr-only">Actions</span>,
                className: 'text-right',
                cell: (t) => (
                  <Button variant="ghost" onClick={() => setRevoking(t)} aria-label={`Revoke token ${String(t.key_prefix)}`}>
                    Revoke
                  </Button>
                ),
              },
            ]}
          />
        </div>
      </div>
      <Dialog open={created !== null} title="Your new token" onClose={() => setCreated(null)} footer={<Button variant="primary" onClick={() => setCreated(null)}>Done</Button>}>
        <p className="mb-2 text-sm">Copy the key now: it is shown only this once.</p>
        <div className="flex gap-2">
          <input readOnly aria-label="Token key" data-testid="new-token-key" className={`${inputClass} font-mono`} value={created ?? ''} onFocus={(e) => e.target.select()} />
          <Button onClick={() => void navigator.clipboard?.writeText(created ?? '').then(() => toast.show({ message: 'Copied.', tone: 'success' }))}>Copy</Button>
        </div>
      </Dialog>
      <Dialog
        open={revoking !== null}
        title="Revoke this token?"
        onClose={() => setRevoking(null)}
        footer={
          <>
            <Button onClick={() => setRevoking(null)}>Cancel</Button>
            <Button variant="danger" disabled={revoke.isPending} onClick={() => revoking && revoke.mutate(revoking.id)}>
              Revoke
            </Button>
          </>
        }
      >
        <p className="text-sm">Scripts using the token starting {String(revoking?.key_prefix ?? '')} will stop working at once.</p>
        {revoke.error ? <ErrorState error={revoke.error} /> : null}
      </Dialog>
    </div>
  );
}
