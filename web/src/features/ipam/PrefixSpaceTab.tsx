// The Space tab of a prefix: where it sits (the prefixes holding it), what is inside (child prefixes and the free
// blocks between them, in address order; a free block is one click from being a prefix) and the addresses it
// holds with their assignment. Reads the API's own filters (contains, within, depth, parent) and
// available-prefixes, so the page and a script see the same thing.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { get, post } from '../../api/client.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { Empty, ErrorState, Loading, errorMessage } from '../../components/states.tsx';
import { Badge, Button } from '../../components/ui.tsx';
import { Value } from '../../components/Value.tsx';
import { compareNetworks, holds } from './networks.ts';

interface Prefix extends ApiObject {
  prefix: string;
  depth: number;
  children: number;
  utilization: number;
  vrf: Brief | null;
  status: Brief | null;
  description?: string;
}

interface Address extends ApiObject {
  address: string;
  dns_name: string;
  status: Brief | null;
  assigned_object: (Brief & { device?: Brief; virtual_machine?: Brief }) | null;
}

type SpaceRow = { kind: 'prefix'; prefix: Prefix } | { kind: 'free'; network: string };

const vrfQuery = (p: Prefix) => (p.vrf ? p.vrf.id : 'null');

/** A container in the global table holds the prefixes of every VRF (NetBox's rule, as the API's free space has it). */
const spansVrfs = (p: Prefix) => !p.vrf && (p.status as (Brief & { slug?: string }) | null)?.slug === 'container';

/** The prefixes of a list not inside another of it (the list in address order). */
function topLevel(prefixes: Prefix[]): Prefix[] {
  const kept: Prefix[] = [];
  for (const p of prefixes) if (!kept.some((k) => k.prefix !== p.prefix && holds(k.prefix, p.prefix))) kept.push(p);
  return kept;
}

/** `ams1-leaf1 › Ethernet1`: an assignment with its owner. */
function assignment(a: Address): string {
  const o = a.assigned_object;
  if (!o) return '';
  const owner = o.device ?? o.virtual_machine;
  return owner ? `${owner.display} › ${o.display}` : o.display;
}

function PrefixLink({ p }: { p: Prefix }) {
  return (
    <Link className="font-mono text-sky-700 hover:underline" to={paths.detail('ipam.prefix', p.id)}>
      {p.prefix}
    </Link>
  );
}

export default function PrefixSpaceTab({ object }: DetailTabProps) {
  const self = object as Prefix;
  const navigate = useNavigate();
  const queries = useQueryClient();
  const [claiming, setClaiming] = useState<string | null>(null);
  const [claimError, setClaimError] = useState<string | null>(null);
  const space = useQuery({
    queryKey: ['prefix-space', self.id, self.prefix, vrfQuery(self)],
    queryFn: async () => {
      const [parents, children, free, addresses] = await Promise.all([
        get<Page<Prefix>>('/api/prefixes/', { contains: self.prefix, vrf_id: vrfQuery(self), mask_length__lte: Number(self.prefix.split('/')[1]) - 1, ordering: 'prefix', limit: 50 }),
        spansVrfs(self)
          ? get<Page<Prefix>>('/api/prefixes/', { within: self.prefix, ordering: 'prefix', limit: 500 }).then((page) => ({ ...page, results: topLevel(page.results) }))
          : get<Page<Prefix>>('/api/prefixes/', { within: self.prefix, vrf_id: vrfQuery(self), depth: self.depth + 1, ordering: 'prefix', limit: 500 }),
        get<Array<{ prefix: string }>>(`/api/prefixes/${self.id}/available-prefixes/`),
        get<Page<Address>>('/api/ip-addresses/', { parent: self.prefix, vrf_id: vrfQuery(self), ordering: 'address', limit: 200 }),
      ]);
      return { parents: parents.results, children: children.results, more: children.next !== null, free, addresses };
    },
  });
  if (space.isLoading) return <Loading label="Reading the address space…" />;
  if (space.error) return <ErrorState error={space.error} retry={() => void space.refetch()} />;
  const { parents, children, more, free, addresses } = space.data!;
  // A prefix holding child prefixes lists them with the gaps between them. One without children is all one gap,
  // itself: offering to create it again would be a duplicate, so it says it is free to split instead.
  const unsplit = children.length === 0 && free.length === 1 && free[0]!.prefix === self.prefix;
  const rows: SpaceRow[] = unsplit ? [] : [...children.map((p) => ({ kind: 'prefix' as const, prefix: p })), ...free.map((f) => ({ kind: 'free' as const, network: f.prefix }))].sort((a, b) =>
    compareNetworks(a.kind === 'prefix' ? a.prefix.prefix : a.network, b.kind === 'prefix' ? b.prefix.prefix : b.network),
  );

  async function claim(network: string) {
    setClaiming(network);
    setClaimError(null);
    try {
      const created = await post<ApiObject>('/api/prefixes/', { prefix: network, vrf: self.vrf?.id ?? null, status: 'active' });
      await queries.invalidateQueries({ queryKey: ['prefix-space'] });
      await navigate({ to: paths.detail('ipam.prefix', created.id) });
    } catch (err) {
      setClaimError(`${network}: ${errorMessage(err)}`);
    } finally {
      setClaiming(null);
    }
  }

  return (
    <div className="space-y-5">
      <section aria-labelledby="prefix-parents">
        <h2 id="prefix-parents" className="mb-1 text-sm font-semibold text-slate-700">
          Inside
        </h2>
        {parents.length ? (
          <ol className="flex flex-wrap items-center gap-1 text-sm" aria-label="Containing prefixes">
            {parents.map((p) => (
              <li key={p.id} className="flex items-center gap-1">
                <PrefixLink p={p} />
                <span aria-hidden="true" className="text-slate-400">
                  ›
                </span>
              </li>
            ))}
            <li className="font-mono font-semibold">{self.prefix}</li>
          </ol>
        ) : (
          <p className="text-sm text-slate-600">A top-level prefix{self.vrf ? ` of VRF ${self.vrf.display}` : ' of the global table'}.</p>
        )}
        <p className="mt-2 text-sm">
          <Value kind="percent" value={self.utilization} />
        </p>
      </section>

      <section aria-labelledby="prefix-children">
        <h2 id="prefix-children" className="mb-1 text-sm font-semibold text-slate-700">
          Child prefixes and free space
        </h2>
        {claimError ? (
          <p role="alert" className="mb-2 text-sm text-red-700">
            {claimError}
          </p>
        ) : null}
        {rows.length ? (
          <table className="w-full rounded-lg border border-slate-200 bg-white text-sm" data-testid="prefix-space">
            <thead className="bg-slate-50 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2">Prefix</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2">Utilisation</th>
                <th className="px-3 py-2">Description</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) =>
                r.kind === 'prefix' ? (
                  <tr key={r.prefix.id} className="border-t border-slate-100">
                    <td className="px-3 py-2">
                      <PrefixLink p={r.prefix} />
                      {r.prefix.vrf && !self.vrf ? <span className="ml-2 text-slate-500">VRF {r.prefix.vrf.display}</span> : null}
                    </td>
                    <td className="px-3 py-2">{r.prefix.status?.display ?? '—'}</td>
                    <td className="px-3 py-2">
                      <Value kind="percent" value={r.prefix.utilization} />
                    </td>
                    <td className="px-3 py-2">{r.prefix.description ?? ''}</td>
                  </tr>
                ) : (
                  <tr key={r.network} className="border-t border-slate-100 bg-green-50/60">
                    <td className="px-3 py-2 font-mono">{r.network}</td>
                    <td className="px-3 py-2">
                      <Badge tone="green">Available</Badge>
                    </td>
                    <td className="px-3 py-2" colSpan={2}>
                      <Button onClick={() => void claim(r.network)} disabled={claiming !== null} aria-label={`Create prefix ${r.network}`}>
                        {claiming === r.network ? 'Creating…' : 'Create this prefix'}
                      </Button>
                    </td>
                  </tr>
                ),
              )}
            </tbody>
          </table>
        ) : unsplit ? (
          <Empty title="No child prefixes">All of {self.prefix} is free to split: Carve child prefix takes its first free block of the length you choose.</Empty>
        ) : (
          <Empty title="No child prefixes and no free space">Every address of this prefix is in a child prefix.</Empty>
        )}
        {more ? (
          <p className="mt-1 text-sm text-slate-600">
            The first {children.length} child prefixes are shown;{' '}
            <Link className="text-sky-700 hover:underline" to={paths.list('ipam.prefix')} search={{ within: self.prefix }}>
              all of them in the prefix list
            </Link>
            .
          </p>
        ) : null}
      </section>

      <section aria-labelledby="prefix-addresses">
        <h2 id="prefix-addresses" className="mb-1 text-sm font-semibold text-slate-700">
          IP addresses ({addresses.count})
        </h2>
        {addresses.results.length ? (
          <table className="w-full rounded-lg border border-slate-200 bg-white text-sm" data-testid="prefix-addresses">
            <thead className="bg-slate-50 text-left text-slate-600">
              <tr>
                <th className="px-3 py-2">Address</th>
                <th className="px-3 py-2">Status</th>
                <th className="px-3 py-2">Assigned to</th>
                <th className="px-3 py-2">DNS name</th>
              </tr>
            </thead>
            <tbody>
              {addresses.results.map((a) => (
                <tr key={a.id} className="border-t border-slate-100">
                  <td className="px-3 py-2">
                    <Link className="font-mono text-sky-700 hover:underline" to={paths.detail('ipam.ipaddress', a.id)}>
                      {a.address}
                    </Link>
                  </td>
                  <td className="px-3 py-2">{a.status?.display ?? '—'}</td>
                  <td className="px-3 py-2">{assignment(a) || <span className="text-slate-500">Not assigned</span>}</td>
                  <td className="px-3 py-2">{a.dns_name}</td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <Empty title="No IP addresses in this prefix" />
        )}
        {addresses.count > addresses.results.length ? (
          <p className="mt-1 text-sm text-slate-600">
            The first {addresses.results.length} of {addresses.count} are shown;{' '}
            <Link className="text-sky-700 hover:underline" to={paths.list('ipam.ipaddress')} search={{ parent: self.prefix }}>
              all of them in the address list
            </Link>
            .
          </p>
        ) : null}
      </section>
    </div>
  );
}
