// Settings → Backups (deployment admins): the backups of this deployment, newest first, as /api/system/backups/
// lists them (the newest few are kept), "Create backup" (a manual one, now) and "Restore" for a backup of the
// running version, after a confirmation that says what it replaces. The server refuses what it cannot do here
// (the embedded database is restored on the server); its words are shown in the dialog.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, get, post } from '../../api/client.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { Empty } from '../../components/states.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { useToast } from '../../components/Toasts.tsx';
import { Badge, Button, PageHeader } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { UnavailableOr } from './Unavailable.tsx';
import { fetchStatus, STATUS_KEY } from './upgrade-api.ts';

interface Backup {
  id: string;
  file: string;
  version: string;
  created: string;
  size: number;
  kind: 'pre-upgrade' | 'manual';
}

function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['kB', 'MB', 'GB', 'TB'];
  let v = bytes / 1024;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(1)} ${units[i]}`;
}

const BACKUPS_KEY = ['system-backups'];

function errorText(err: unknown): string {
  if (!(err instanceof ApiError)) return err instanceof Error ? err.message : String(err);
  const fields = Object.entries(err.fieldErrors);
  return fields.length ? fields.map(([k, v]) => `${k}: ${v.join(' ')}`).join(' ') : err.message;
}

function RestoreDialog({ backup, onClose }: { backup: Backup | null; onClose: () => void }) {
  const client = useQueryClient();
  const toast = useToast();
  const restore = useMutation({
    mutationFn: (b: Backup) => post<{ restored: Backup }>(`/api/system/backups/${encodeURIComponent(b.id)}/restore/`, { confirm: b.id }),
    onSuccess: (r) => {
      toast.show({ message: `Restored backup ${r.restored.id}.`, tone: 'success' });
      onClose();
      // Everything may differ now, the signed-in session too.
      void client.invalidateQueries();
    },
  });
  const close = () => {
    restore.reset();
    onClose();
  };
  return (
    <Dialog
      open={backup !== null}
      title={backup ? `Restore the backup of ${formatDateTime(backup.created)}?` : ''}
      onClose={close}
      footer={<DialogActions onCancel={close} onConfirm={() => backup && restore.mutate(backup)} confirmLabel="Restore" busyLabel="Restoring…" pending={restore.isPending} variant="danger" />}
    >
      {backup ? (
        <div className="space-y-2 text-sm">
          <p>
            This replaces <strong>the database</strong>, <strong>the data directory</strong> and <strong>the environment file</strong> of this deployment with those of backup{' '}
            <span className="font-mono text-xs">{backup.id}</span> (Cairn {backup.version}).
          </p>
          <p>Everything changed since {formatDateTime(backup.created)} is lost, including users, tokens and sessions made since: you may have to sign in again.</p>
          {restore.error ? (
            <p role="alert" className="text-red-700">
              {errorText(restore.error)}
            </p>
          ) : null}
        </div>
      ) : null}
    </Dialog>
  );
}

export default function BackupsPage() {
  const client = useQueryClient();
  const toast = useToast();
  const backups = useQuery({ queryKey: BACKUPS_KEY, queryFn: () => get<{ count: number; kept: number; results: Backup[] }>('/api/system/backups/'), retry: false });
  // The running version: only its own backups can be restored.
  const status = useQuery({ queryKey: STATUS_KEY, queryFn: fetchStatus, retry: false });
  const running = status.data?.running_version ?? null;
  const [restoring, setRestoring] = useState<Backup | null>(null);
  const create = useMutation({
    mutationFn: () => post<Backup>('/api/system/backups/'),
    onSuccess: (b) => {
      toast.show({ message: `Backup ${b.id} created (${size(b.size)}).`, tone: 'success' });
      void client.invalidateQueries({ queryKey: BACKUPS_KEY });
    },
    onError: (err) => toast.show({ message: errorText(err), tone: 'error' }),
  });
  return (
    <div className="max-w-4xl space-y-4">
      <PageHeader
        title="Backups"
        subtitle={backups.data ? `Database, data directory and environment file. The newest ${backups.data.kept} are kept; a backup is restored only onto the version that made it.` : undefined}
      />
      <div>
        <Button variant="primary" onClick={() => create.mutate()} disabled={create.isPending}>
          {create.isPending ? 'Creating backup…' : 'Create backup'}
        </Button>
      </div>
      <DataTable
        caption="Backups"
        rows={backups.data?.results}
        rowKey={(b) => b.id}
        loading={backups.isLoading}
        error={backups.error}
        renderError={(error) => <UnavailableOr error={error} what="The backup list" retry={() => void backups.refetch()} />}
        empty={<Empty title="No backups yet">Upgrades take one first; Create backup takes one now.</Empty>}
        columns={[
          { key: 'taken', header: 'Taken', cell: (b) => formatDateTime(b.created), className: 'whitespace-nowrap' },
          { key: 'kind', header: 'Kind', cell: (b) => <Badge tone={b.kind === 'pre-upgrade' ? 'sky' : 'slate'}>{b.kind}</Badge> },
          { key: 'version', header: 'Version', cell: (b) => b.version },
          { key: 'size', header: 'Size', cell: (b) => size(b.size) },
          { key: 'file', header: 'File', cell: (b) => b.file, className: 'font-mono text-xs' },
          {
            key: 'actions',
            header: <span className="sr-only">Actions</span>,
            className: 'text-right',
            cell: (b) => {
              const sameVersion = running !== null && b.version === running;
              return (
                <Button
                  onClick={() => setRestoring(b)}
                  disabled={!sameVersion}
                  aria-label={`Restore ${b.id}`}
                  title={sameVersion ? undefined : running ? `Made by Cairn ${b.version}; this is ${running}: restore it after installing ${b.version}.` : undefined}
                >
                  Restore
                </Button>
              );
            },
          },
        ]}
      />
      <RestoreDialog backup={restoring} onClose={() => setRestoring(null)} />
    </div>
  );
}
