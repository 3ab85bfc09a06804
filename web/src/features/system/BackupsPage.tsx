// Settings → Backups (deployment admins): the backups of this deployment, newest first, as /api/system/backups/
// lists them (the newest few are kept), "Create backup" (a manual one, now) and "Restore" for a backup of the
// running version, after a confirmation that says what it replaces. The server refuses what it cannot do here
// (the embedded database is restored on the server); its words are shown in the dialog.
import { useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiError, get, post } from '../../api/client.ts';
import { Dialog, DialogActions } from '../../components/Dialog.tsx';
import { Empty, Loading } from '../../components/states.tsx';
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
      {backups.isLoading ? <Loading /> : null}
      {backups.error ? <UnavailableOr error={backups.error} what="The backup list" retry={() => void backups.refetch()} /> : null}
      {backups.data && backups.data.count === 0 ? <Empty title="No backups yet">Upgrades take one first; Create backup takes one now.</Empty> : null}
      {backups.data?.count ? (
        <table className="w-full rounded-lg border border-slate-200 bg-white text-sm">
          <thead className="bg-slate-50 text-left text-slate-600">
            <tr>
              <th className="px-3 py-2">Taken</th>
              <th className="px-3 py-2">Kind</th>
              <th className="px-3 py-2">Version</th>
              <th className="px-3 py-2">Size</th>
              <th className="px-3 py-2">File</th>
              <th className="px-3 py-2">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {backups.data.results.map((b) => {
              const sameVersion = running !== null && b.version === running;
              return (
                <tr key={b.id} className="border-t border-slate-100">
                  <td className="px-3 py-2 whitespace-nowrap">{formatDateTime(b.created)}</td>
                  <td className="px-3 py-2">
                    <Badge tone={b.kind === 'pre-upgrade' ? 'sky' : 'slate'}>{b.kind}</Badge>
                  </td>
                  <td className="px-3 py-2">{b.version}</td>
                  <td className="px-3 py-2">{size(b.size)}</td>
                  <td className="px-3 py-2 font-mono text-xs">{b.file}</td>
                  <td className="px-3 py-2 text-right">
                    <Button
                      onClick={() => setRestoring(b)}
                      disabled={!sameVersion}
                      aria-label={`Restore ${b.id}`}
                      title={sameVersion ? undefined : running ? `Made by Cairn ${b.version}; this is ${running}: restore it after installing ${b.version}.` : undefined}
                    >
                      Restore
                    </Button>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      <RestoreDialog backup={restoring} onClose={() => setRestoring(null)} />
    </div>
  );
}
