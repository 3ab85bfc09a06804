// The check assignments of some services with their state, last result, latency and time of the last check.
import { useQuery } from '@tanstack/react-query';
import { get } from '../../api/client.ts';
import type { Page } from '../../api/types.ts';
import { ErrorState, Loading } from '../../components/states.tsx';
import { Badge } from '../../components/ui.tsx';
import { formatDateTime } from '../../components/Value.tsx';
import { CHECKS_PATH, STATE_TONE, type CheckAssignment } from './api.ts';

export function useChecks(serviceIds: string[]) {
  const query = { service_id: serviceIds, limit: 1000 };
  return useQuery({
    queryKey: ['list', CHECKS_PATH, query],
    queryFn: () => get<Page<CheckAssignment>>(CHECKS_PATH, query),
    enabled: serviceIds.length > 0,
    // Check states change on their own as the worker runs: poll while the page is open.
    refetchInterval: 15_000,
  });
}

export function CheckList({ checks }: { checks: CheckAssignment[] }) {
  if (!checks.length) return <p className="text-xs text-slate-500">No checks (not monitored, or no IP to watch).</p>;
  return (
    <ul className="space-y-1" aria-label="Checks">
      {checks.map((c) => (
        <li key={c.id} className="flex flex-wrap items-center gap-2 text-xs">
          <Badge tone={STATE_TONE[c.state]}>{c.state}</Badge>
          <span className="font-mono">{c.template.display}</span>
          <span className="text-slate-500">on {c.ip_address.display}</span>
          {c.last_checked ? (
            <span className="text-slate-500">
              · last {c.last_result ?? '—'}
              {c.last_latency_ms !== null ? ` in ${Number(c.last_latency_ms).toFixed(1)} ms` : ''} at {formatDateTime(c.last_checked)}
            </span>
          ) : (
            <span className="text-slate-500">· not checked yet</span>
          )}
          {!c.enabled ? <Badge tone="amber">disabled</Badge> : null}
        </li>
      ))}
    </ul>
  );
}

export function ServiceChecks({ serviceId }: { serviceId: string }) {
  const checks = useChecks([serviceId]);
  if (checks.isLoading) return <Loading />;
  if (checks.error) return <ErrorState error={checks.error} retry={() => void checks.refetch()} />;
  return <CheckList checks={checks.data?.results ?? []} />;
}
