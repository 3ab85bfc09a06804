// Create or edit a service (the same dialog on a device's Services tab and on the service's own page). Ports are
// typed per protocol as comma lists; the API checks them and its field errors are shown on the field.
import { useState } from 'react';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ApiError, patch, post, type FieldErrors } from '../../api/client.ts';
import type { Brief } from '../../api/types.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { FieldShell } from '../../components/fields/FieldInput.tsx';
import { ObjectPicker } from '../../components/fields/ObjectPicker.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { inputClass } from '../../components/ui.tsx';
import { SERVICES_PATH, type Service } from './api.ts';

/** Splits "22, 443" into numbers; anything that is not a whole number is kept as is for the API to name. */
function parsePorts(text: string): Array<number | string> {
  return text
    .split(/[\s,]+/)
    .filter(Boolean)
    .map((p) => (/^\d+$/.test(p) ? Number(p) : p));
}

export function ServiceDialog({ open, onClose, service, parent }: { open: boolean; onClose: () => void; service: Service | null; parent?: { key: 'device' | 'virtual_machine'; id: string } }) {
  const client = useQueryClient();
  const toast = useToast();
  const [name, setName] = useState(service?.name ?? '');
  const [tcp, setTcp] = useState((service?.protocol_ports?.tcp ?? []).join(', '));
  const [udp, setUdp] = useState((service?.protocol_ports?.udp ?? []).join(', '));
  const [ip, setIp] = useState<Brief | null>(service?.ip_address ?? null);
  const [monitored, setMonitored] = useState(service?.monitored ?? false);
  const [description, setDescription] = useState(service?.description ?? '');
  const [errors, setErrors] = useState<FieldErrors>({});

  const save = useMutation({
    mutationFn: () => {
      const protocol_ports: Record<string, Array<number | string>> = {};
      if (tcp.trim()) protocol_ports.tcp = parsePorts(tcp);
      if (udp.trim()) protocol_ports.udp = parsePorts(udp);
      const body: Record<string, unknown> = { name, protocol_ports, ip_address: ip?.id ?? null, monitored, description };
      if (service) return patch<Service>(`${SERVICES_PATH}${service.id}/`, body);
      return post<Service>(SERVICES_PATH, { ...body, [parent!.key]: parent!.id });
    },
    onSuccess: (row) => {
      setErrors({});
      client.setQueryData(['object', SERVICES_PATH, row.id], row);
      void client.invalidateQueries({ queryKey: ['list', SERVICES_PATH] });
      void client.invalidateQueries({ queryKey: ['list', '/api/check-assignments/'] });
      toast.show({ message: `Saved ${row.name}.`, tone: 'success' });
      onClose();
    },
    onError: (err) => setErrors(err instanceof ApiError ? err.fieldErrors : { non_field_errors: [err instanceof Error ? err.message : 'Could not save.'] }),
  });

  const portErrors = errors.protocol_ports;
  // Mark the box whose protocol the message names; a message naming neither marks both.
  const names = (proto: string) => !!portErrors?.some((m) => m.toLowerCase().includes(proto));
  const tcpInvalid = !!portErrors && (names('tcp') || !names('udp'));
  const udpInvalid = !!portErrors && (names('udp') || !names('tcp'));
  return (
    <Dialog
      open={open}
      onClose={onClose}
      title={service ? `Edit ${service.name}` : 'Add service'}
      footer={
<DialogActions onCancel={onClose} onConfirm={() => save.mutate()} confirmLabel="Save" busyLabel="Saving…" pending={save.isPending} />
      }
    >
      <form
        aria-label={service ? `Edit service ${service.name}` : 'Add service'}
        className="space-y-3"
        onSubmit={(e) => {
          e.preventDefault();
          save.mutate();
        }}
      >
        {errors.non_field_errors || errors.detail ? (
          <p role="alert" className="text-sm text-red-700">
            {(errors.non_field_errors ?? errors.detail)!.join(' ')}
          </p>
        ) : null}
        <FieldShell id="svc-name" label="Name" required errors={errors.name}>
          <input id="svc-name" className={inputClass} value={name} aria-invalid={!!errors.name || undefined} onChange={(e) => setName(e.target.value)} />
        </FieldShell>
        <div className="grid grid-cols-2 gap-3">
          <FieldShell id="svc-tcp" label="TCP ports" hint="e.g. 22, 443">
            <input id="svc-tcp" className={inputClass} value={tcp} aria-invalid={tcpInvalid || undefined} onChange={(e) => setTcp(e.target.value)} />
          </FieldShell>
          <FieldShell id="svc-udp" label="UDP ports" hint="e.g. 53">
            <input id="svc-udp" className={inputClass} value={udp} aria-invalid={udpInvalid || undefined} onChange={(e) => setUdp(e.target.value)} />
          </FieldShell>
        </div>
        {portErrors ? (
          <p role="alert" className="text-sm text-red-700">
            Ports: {portErrors.join(' ')}
          </p>
        ) : null}
        <FieldShell id="svc-ip" label="IP address" hint="Empty: the parent's primary IP is watched." errors={errors.ip_address}>
          <ObjectPicker endpoint="/api/ip-addresses/" id="svc-ip" label="IP address" value={ip} nullable onChange={setIp} invalid={!!errors.ip_address} />
        </FieldShell>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={monitored} onChange={(e) => setMonitored(e.target.checked)} />
          Monitored (run checks for its ports)
        </label>
        <FieldShell id="svc-description" label="Description" errors={errors.description}>
          <input id="svc-description" className={inputClass} value={description} onChange={(e) => setDescription(e.target.value)} />
        </FieldShell>
      </form>
    </Dialog>
  );
}
