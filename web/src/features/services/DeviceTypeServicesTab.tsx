// Device type → Services: the service templates of a device type (copied to every new device of the type), each
// with a Monitor tick that says whether services made from it are monitored.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { get, patch } from '../../api/client.ts';
import type { ApiObject, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Empty, errorMessage } from '../../components/states.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { portsText } from './api.ts';

const PATH = '/api/device-type-services/';

interface TypeService extends ApiObject {
  name: string;
  protocol_ports: Record<string, number[]>;
  monitor: boolean;
  description: string;
}

export default function DeviceTypeServicesTab({ object, me }: DetailTabProps) {
  const client = useQueryClient();
  const toast = useToast();
  const query = { device_type_id: object.id, limit: 500 };
  const rows = useQuery({ queryKey: ['list', PATH, query], queryFn: () => get<Page<TypeService>>(PATH, query) });
  const tick = useMutation({
    mutationFn: ({ id, monitor }: { id: string; monitor: boolean }) => patch<TypeService>(`${PATH}${id}/`, { monitor }),
    onSuccess: (row) => {
      void client.invalidateQueries({ queryKey: ['list', PATH] });
      toast.show({ message: `${row.name}: ${row.monitor ? 'new services are monitored' : 'new services are not monitored'}.`, tone: 'success' });
    },
    onError: (err) => toast.show({ message: errorMessage(err), tone: 'error' }),
  });
  return (
    <DataTable
      caption="Service templates"
      rows={rows.data?.results}
      rowKey={(s) => s.id}
      loading={rows.isLoading}
      error={rows.error}
      retry={() => void rows.refetch()}
      empty={<Empty title="No service templates">Add service templates under Service templates with this device type.</Empty>}
      columns={[
        { key: 'name', header: 'Service', cell: (s) => s.name, className: 'font-medium' },
        { key: 'ports', header: 'Ports', cell: (s) => portsText(s.protocol_ports), className: 'font-mono text-xs' },
        {
          key: 'monitor',
          header: 'Monitor',
          cell: (s) => (
            <input type="checkbox" aria-label={`Monitor ${s.name}`} checked={tick.isPending && tick.variables.id === s.id ? tick.variables.monitor : s.monitor} disabled={me.read_only || tick.isPending} onChange={(e) => tick.mutate({ id: s.id, monitor: e.target.checked })} />
          ),
        },
        { key: 'description', header: 'Description', cell: (s) => s.description, className: 'text-slate-600' },
      ]}
    />
  );
}
