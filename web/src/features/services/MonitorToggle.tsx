// The Monitored badge and its switch: a PATCH of `monitored`, which reconciles the service's checks on the server.
import { useEffect, useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { patch } from '../../api/client.ts';
import { errorMessage } from '../../components/states.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Badge } from '../../components/ui.tsx';
import { CHECKS_PATH, SERVICES_PATH, type Service } from './api.ts';

export function MonitoredBadge({ on }: { on: boolean }) {
  return on ? <Badge tone="sky">Monitored</Badge> : <Badge tone="slate">Not monitored</Badge>;
}

export function MonitorToggle({ service, disabled }: { service: Service; disabled?: boolean }) {
  const client = useQueryClient();
  const toast = useToast();
  // The switch moves at once; the row's own value takes over again when the server's answer arrives.
  const [wanted, setWanted] = useState<boolean | null>(null);
  useEffect(() => setWanted(null), [service.monitored]);
  const shown = wanted ?? service.monitored;
  const flip = useMutation({
    mutationFn: (monitored: boolean) => patch<Service>(`${SERVICES_PATH}${service.id}/`, { monitored }),
    onSuccess: (row) => {
      client.setQueryData(['object', SERVICES_PATH, row.id], row);
      void client.invalidateQueries({ queryKey: ['object', SERVICES_PATH, row.id] });
      void client.invalidateQueries({ queryKey: ['list', SERVICES_PATH] });
      void client.invalidateQueries({ queryKey: ['list', CHECKS_PATH] });
      toast.show({
        message: row.monitored ? `${row.name} is monitored (${row.check_count} ${row.check_count === 1 ? 'check' : 'checks'}).` : `${row.name} is no longer monitored.`,
        tone: 'success',
      });
    },
    onError: (err) => {
      setWanted(null);
      toast.show({ message: errorMessage(err), tone: 'error' });
    },
  });
  return (
    <label className="inline-flex items-center gap-2 text-sm">
      <input
        type="checkbox"
        role="switch"
        aria-checked={shown}
        checked={shown}
        disabled={disabled || flip.isPending}
        onChange={(e) => {
          setWanted(e.target.checked);
          flip.mutate(e.target.checked);
        }}
        aria-label={`Monitor ${service.name}`}
      />
      <MonitoredBadge on={service.monitored} />
    </label>
  );
}
