// The nav marker beside Settings → Updates when a newer release is available (admins only: the nav entry is
// visible to them alone). Shares the Updates page's query, so the page and the nav agree.
import { useQuery } from '@tanstack/react-query';
import { AVAILABLE_KEY, fetchAvailable } from './upgrade-api.ts';

export function UpdateBadge() {
  const available = useQuery({ queryKey: AVAILABLE_KEY, queryFn: fetchAvailable, retry: false, staleTime: 10 * 60_000 });
  if (!available.data?.update_available) return null;
  return (
    <span className="ml-1.5 rounded bg-amber-100 px-1 text-xs font-medium text-amber-900" title={`Update available: ${available.data.latest?.version ?? ''}`}>
      <span aria-hidden="true">●</span> update available
    </span>
  );
}
