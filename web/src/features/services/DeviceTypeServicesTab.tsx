// Device type → Services: the service templates of a device type (copied to every new device of the type), each
// with a Monitor tick that says whether services made from it are monitored.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { get, patch } from '../../api/client.ts';
import type { ApiObject, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { Empty, ErrorState, Loading, errorMessage } from '../../components/states.tsx';
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
  if (rows.isLoading) return <Loading />;
  if (rows.error) return <ErrorState error={rows.error} retry={() => void rows.refetch()} />;
  const list = rows.data!.results;
  if (!list.length) return <Empty title="No service templates">Add service templates under Service templates with this device type.</Empty>;
  return (
    <table className="w-full rounded-lg border border-slate-200 bg-white text-sm">
      <thead className="bg-slate-50 text-left text-slate-600">
        <tr>
          <th className="px-3 py-2">Service</th>
          <th className="px-3 py-2">Ports</th>
          <th className="px-3 py-2">Monitor</th>
          <th className="px-3 py-2">Description</th>
        </tr>
      </thead>
      <tbody>
        {list.map((s) => (
          <tr key={s.id} className="border-t border-slate-100">
            <td className="px-3 py-2 font-medium">{s.name}</td>
            <td className="px-3 py-2 font-mono text-xs">{portsText(s.protocol_ports)}</td>
            <td className="px-3 py-2">
              <input type="checkbox" aria-label={`Monitor ${s.name}`} checked={tick.isPending && tick.variables.id === s.id ? tick.variables.monitor : s.monitor} disabled={me.read_only || tick.isPending} onChange={(e) => tick.mutate({ id: s.id, monitor: e.target.checked })} />
            </td>
            <td className="px-3 py-2 text-slate-600">{s.description}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
