// A status as a coloured badge. Brief status objects carry no colour, so the tenant's statuses are read once
// (one cached request for every badge on the page).
import { useQuery } from '@tanstack/react-query';
import { get } from '../api/client.ts';
import type { Brief, Page } from '../api/types.ts';
import { Badge } from './ui.tsx';

export const statusesQuery = { queryKey: ['statuses'], queryFn: () => get<Page<Brief & { color: string; available_to: string[] }>>('/api/statuses/', { limit: 1000 }), staleTime: 60_000 };

export function StatusBadge({ status }: { status: Brief }) {
  const statuses = useQuery(statusesQuery);
  const color = typeof status.color === 'string' ? status.color : statuses.data?.results.find((s) => s.id === status.id)?.color;
  return <Badge color={color}>{status.display}</Badge>;
}
