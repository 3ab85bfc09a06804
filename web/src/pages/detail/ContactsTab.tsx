// Contacts: who to call about this object (its contact assignments, each a contact in a role with a priority),
// with a form to assign one more.
import { useState, type FormEvent } from 'react';
import { Link } from '@tanstack/react-router';
import { useMutation, useQueries, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, del, get, post } from '../../api/client.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { ErrorState } from '../../components/states.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { Badge, Button, inputClass } from '../../components/ui.tsx';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { ObjectPicker } from '../../components/fields/ObjectPicker.tsx';

const PRIORITY_TONES: Record<string, 'green' | 'sky' | 'slate' | 'amber'> = { primary: 'green', secondary: 'sky', tertiary: 'slate', inactive: 'amber' };

interface Choice {
  value: string;
  label: string;
}

export function ContactsTab({ model, object }: DetailTabProps) {
  const client = useQueryClient();
  const key = ['contact-assignments', model.model, object.id];
  const assignments = useQuery({
    queryKey: key,
    queryFn: () => get<Page>('/api/contact-assignments/', { object_type: model.model, object_id: object.id, limit: 200 }),
  });
  // The priorities' labels come from the server's vocabulary, as every choice field's do.
  const choices = useQuery({ queryKey: ['dcim-choices'], queryFn: () => get<Record<string, Choice[]>>('/api/dcim/choices/'), staleTime: 300_000 });
  const priorities = choices.data?.contact_priorities ?? [];
  const priorityLabel = (v: unknown) => priorities.find((p) => p.value === v)?.label ?? String(v);
  // Primary first, then secondary, tertiary, inactive, none; oldest first within each (the list's order).
  const rank = (v: unknown) => {
    const i = priorities.findIndex((p) => p.value === v);
    return i < 0 ? priorities.length : i;
  };
  const rows = [...(assignments.data?.results ?? [])].sort((a, b) => rank(a.priority) - rank(b.priority));

  // Each assigned contact's own row, for its email address and phone number (a handful per object).
  const contactIds = [...new Set(rows.map((a) => (a.contact as Brief | null)?.id).filter((id): id is string => !!id))];
  const contacts = useQueries({
    queries: contactIds.map((id) => ({ queryKey: ['object', '/api/contacts/', id], queryFn: () => get<ApiObject>(`/api/contacts/${id}/`), staleTime: 30_000 })),
  });
  const contactOf = (id: string | undefined) => contacts.find((c) => c.data?.id === id)?.data;

  const [contact, setContact] = useState<Brief | null>(null);
  const [role, setRole] = useState<Brief | null>(null);
  const [priority, setPriority] = useState('');
  const add = useMutation({
    mutationFn: () => post<ApiObject>('/api/contact-assignments/', { object_type: model.model, object_id: object.id, contact: contact?.id, role: role?.id, priority: priority || null }),
    onSuccess: () => {
      setContact(null);
      setRole(null);
      setPriority('');
      void client.invalidateQueries({ queryKey: key });
    },
  });
  const remove = useMutation({
    mutationFn: (id: string) => del<unknown>(`/api/contact-assignments/${id}/`),
    onSuccess: () => void client.invalidateQueries({ queryKey: key }),
  });
  const fieldErrors = add.error instanceof ApiError ? add.error.fieldErrors : {};
  const submit = (e: FormEvent) => {
    e.preventDefault();
    add.mutate();
  };

  return (
    <div className="grid gap-4 lg:grid-cols-3">
      <form onSubmit={submit} className="space-y-3 self-start rounded-lg border border-slate-200 bg-white p-4" aria-label="Assign a contact">
        <h2 className="font-semibold">Assign contact</h2>
        <FieldShell id="contact-pick" label="Contact" errors={fieldErrors.contact} required>
          <ObjectPicker endpoint="/api/contacts/" id="contact-pick" label="Contact" invalid={!!fieldErrors.contact} value={contact} nullable={false} onChange={setContact} />
        </FieldShell>
        <FieldShell id="contact-role" label="Role" errors={fieldErrors.role} required>
          <ObjectPicker endpoint="/api/contact-roles/" id="contact-role" label="Role" invalid={!!fieldErrors.role} value={role} nullable={false} onChange={setRole} />
        </FieldShell>
        <FieldShell id="contact-priority" label="Priority" errors={fieldErrors.priority}>
          <select id="contact-priority" className={inputClass} value={priority} onChange={(e) => setPriority(e.target.value)}>
            <option value="">None</option>
            {priorities.map((p) => (
              <option key={p.value} value={p.value}>
                {p.label}
              </option>
            ))}
          </select>
        </FieldShell>
        {add.error && !Object.keys(fieldErrors).length ? <ErrorState error={add.error} /> : null}
        {(['object_type', 'object_id'] as const).flatMap((k) => fieldErrors[k] ?? []).map((m) => (
          <p key={m} className="text-sm text-red-700">
            {m}
          </p>
        ))}
        <Button type="submit" variant="primary" disabled={add.isPending || !contact || !role}>
          {add.isPending ? 'Saving…' : 'Assign contact'}
        </Button>
      </form>
      <div className="lg:col-span-2">
        <DataTable
          caption="Contacts"
          rows={assignments.data ? rows : undefined}
          rowKey={(a) => a.id}
          loading={assignments.isLoading}
          error={assignments.error}
          retry={() => void assignments.refetch()}
          empty="No contacts assigned"
          columns={[
            {
              key: 'contact',
              header: 'Contact',
              className: 'whitespace-nowrap',
              cell: (a) => {
                const c = a.contact as Brief | null;
                return c ? (
                  <Link to={paths.detail('tenancy.contact', c.id)} className="text-sky-700 hover:underline">
                    {c.display}
                  </Link>
                ) : null;
              },
            },
            { key: 'role', header: 'Role', cell: (a) => (a.role as Brief | null)?.display ?? '' },
            {
              key: 'priority',
              header: 'Priority',
              cell: (a) => (a.priority ? <Badge tone={PRIORITY_TONES[String(a.priority)] ?? 'slate'}>{priorityLabel(a.priority)}</Badge> : <span className="text-slate-400">—</span>),
            },
            {
              key: 'reach',
              header: 'Email and phone',
              cell: (a) => {
                const details = contactOf((a.contact as Brief | null)?.id);
                const email = typeof details?.email === 'string' ? details.email : '';
                const phone = typeof details?.phone === 'string' ? details.phone : '';
                return (
                  <>
                    {email ? (
                      <a href={`mailto:${email}`} className="block text-sky-700 hover:underline">
                        {email}
                      </a>
                    ) : null}
                    {phone ? (
                      <a href={`tel:${phone.replace(/\s/g, '')}`} className="block whitespace-nowrap text-slate-600 hover:underline">
                        {phone}
                      </a>
                    ) : null}
                  </>
                );
              },
            },
            {
              key: 'actions',
              header: <span className="sr-only">Actions</span>,
              className: 'text-right',
              cell: (a) => {
                const c = a.contact as Brief | null;
                const r = a.role as Brief | null;
                return (
                  <Button type="button" onClick={() => remove.mutate(a.id)} disabled={remove.isPending} aria-label={`Remove ${c?.display ?? 'contact'} as ${r?.display ?? 'contact'}`}>
                    Remove
                  </Button>
                );
              },
            },
          ]}
        />
        {remove.error ? <ErrorState error={remove.error} /> : null}
      </div>
    </div>
  );
}
