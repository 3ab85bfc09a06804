// Settings → Backups (deployment admins): the backups of this deployment, newest first, as /api/system/backups/
// lists them (the newest few are kept; restore runs on the server with `cairn backup restore`).
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import { Empty, Loading } from '../../components/states.tsx';
import { Badge, PageHeader } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { UnavailableOr } from './Unavailable.tsx';

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

export default function BackupsPage() {
  const backups = useQuery({ queryKey: ['system-backups'], queryFn: () => get<{ count: number; kept: number; results: Backup[] }>('/api/system/backups/'), retry: false });
  return (
    <div className="max-w-4xl space-y-4">
      <PageHeader title="Backups" subtitle={backups.data ? `The newest ${backups.data.kept} are kept. Restore with cairn backup restore on the server (same version only).` : undefined} />
      {backups.isLoading ? <Loading /> : null}
      {backups.error ? <UnavailableOr error={backups.error} what="The backup list" retry={() => void backups.refetch()} /> : null}
      {backups.data && backups.data.count === 0 ? <Empty title="No backups yet">Upgrades take one first; cairn backup create takes one by hand.</Empty> : null}
      {backups.data?.count ? (
        <table className="w-full rounded-lg border border-slate-200 bg-white text-sm">
          <thead className="bg-slate-50 text-left text-slate-600">
            <tr>
              <th className="px-3 py-2">Taken</th>
              <th className="px-3 py-2">Kind</th>
              <th className="px-3 py-2">Version</th>
              <th className="px-3 py-2">Size</th>
              <th className="px-3 py-2">File</th>
            </tr>
          </thead>
          <tbody>
            {backups.data.results.map((b) => (
              <tr key={b.id} className="border-t border-slate-100">
                <td className="px-3 py-2 whitespace-nowrap">{formatDateTime(b.created)}</td>
                <td className="px-3 py-2">
                  <Badge tone={b.kind === 'pre-upgrade' ? 'sky' : 'slate'}>{b.kind}</Badge>
                </td>
                <td className="px-3 py-2">{b.version}</td>
                <td className="px-3 py-2">{size(b.size)}</td>
                <td className="px-3 py-2 font-mono text-xs">{b.file}</td>
              </tr>
            ))}
          </tbody>
        </table>
      ) : null}
    </div>
  );
}
