// Header of a service's own page: the Monitored switch, Edit (the dialog of the Services tab, in place of the
// generic edit page, so the header has one Edit) and, since Delete
// also releases the service's checks, a note saying so next to the page's Delete button.
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Button } from '../../components/ui.tsx';
import { MonitorToggle } from './MonitorToggle.tsx';
import { ServiceDialog } from './ServiceDialog.tsx';
import { SERVICES_PATH, type Service } from './api.ts';

export default function ServiceActions({ object, model, me }: DetailTabProps) {
  // The detail page's copy of the row; re-read so the switch shows the state after a toggle.
  const row = useQuery({ queryKey: ['object', SERVICES_PATH, object.id], queryFn: () => get<Service>(`${SERVICES_PATH}${object.id}/`), initialData: object as Service });
  const [editing, setEditing] = useState(false);
  const service = row.data;
  const canChange = model.can.change && !me.read_only;
  return (
    <>
      <MonitorToggle service={service} disabled={!canChange} />
      {canChange ? <Button onClick={() => setEditing(true)}>Edit</Button> : null}
      {model.can.delete && service.check_count > 0 ? (
        <span className="text-xs text-amber-800" role="note">
          Deleting it removes its {service.check_count} {service.check_count === 1 ? 'check' : 'checks'}.
        </span>
      ) : null}
      {editing ? <ServiceDialog open onClose={() => setEditing(false)} service={service} /> : null}
    </>
  );
}
