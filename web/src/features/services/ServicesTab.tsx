// The Services tab of a device (or VM): each service with its ports, status, Monitored switch and checks; Add and
// Edit open the same dialog as the service's own page.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get } from '../../api/client.ts';
import type { Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { Empty, ErrorState, Loading } from '../../components/states.tsx';
import { Badge, Button } from '../../components/ui.tsx';
import { CheckList, useChecks } from './CheckStates.tsx';
import { MonitorToggle } from './MonitorToggle.tsx';
import { ServiceDialog } from './ServiceDialog.tsx';
import { SERVICES_PATH, STATE_TONE, portsText, type Service } from './api.ts';

export default function ServicesTab({ object, model, me }: DetailTabProps) {
  const parentKey = model.model === 'dcim.device' ? 'device' : 'virtual_machine';
  const query = { [`${parentKey}_id`]: object.id, limit: 500 };
  const services = useQuery({ queryKey: ['list', SERVICES_PATH, query], queryFn: () => get<Page<Service>>(SERVICES_PATH, query) });
  const rows = services.data?.results ?? [];
  const checks = useChecks(rows.map((s) => s.id));
  const [editing, setEditing] = useState<Service | 'new' | null>(null);
  const canChange = !me.read_only;

  if (services.isLoading) return <Loading />;
  if (services.error) return <ErrorState error={services.error} retry={() => void services.refetch()} />;
  return (
    <div className="space-y-3">
      <div className="flex justify-end">
        {canChange ? (
          <Button variant="primary" onClick={() => setEditing('new')}>
            Add service
          </Button>
        ) : null}
      </div>
      {rows.length === 0 ? (
        <Empty title="No services">Services on this {model.label} appear here; add one to monitor its ports.</Empty>
      ) : (
        <ul className="space-y-2" aria-label="Services">
          {rows.map((s) => (
            <li key={s.id} className="rounded-lg border border-slate-200 bg-white px-4 py-3" data-service={s.name}>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <div className="flex flex-wrap items-center gap-2">
                  <Link to={paths.detail('monitoring.service', s.id)} className="font-medium text-sky-700 hover:underline">
                    {s.name}
                  </Link>
                  <span className="font-mono text-xs text-slate-600">{portsText(s.protocol_ports)}</span>
                  <Badge tone={STATE_TONE[s.status]}>{s.status}</Badge>
                </div>
                <div className="flex items-center gap-3">
                  <MonitorToggle service={s} disabled={!canChange} />
                  {canChange ? <Button onClick={() => setEditing(s)} aria-label={`Edit ${s.name}`}>Edit</Button> : null}
                </div>
              </div>
              <div className="mt-2">{checks.data ? <CheckList checks={checks.data.results.filter((c) => c.service?.id === s.id)} /> : null}</div>
            </li>
          ))}
        </ul>
      )}
      {editing ? (
        <ServiceDialog
          key={editing === 'new' ? 'new' : editing.id}
          open
          onClose={() => setEditing(null)}
          service={editing === 'new' ? null : editing}
          parent={{ key: parentKey, id: object.id }}
        />
      ) : null}
    </div>
  );
}
