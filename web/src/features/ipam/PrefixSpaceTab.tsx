// The Space tab of a prefix: where it sits (the prefixes holding it), what is inside (child prefixes and the free
// blocks between them, in address order; a free block opens the add form filled in, or is one click from being a
// prefix) and the addresses it holds with their holder, the runs of free addresses between them as rows of their
// own (NetBox's "N IPs available") that open the add form filled in. Reads the API's own filters (contains,
// within, depth, parent), available-prefixes and free-ranges, so the page and a script see the same thing.
import { useState } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from '@tanstack/react-router';
import { get, post } from '../../api/client.ts';
import type { ApiObject, Brief, Page } from '../../api/types.ts';
import type { DetailTabProps } from '../../app/extensions.ts';
import { paths } from '../../app/paths.ts';
import { DataTable } from '../../components/DataTable.tsx';
import { Empty, ErrorState, Loading, errorMessage } from '../../components/states.tsx';
import { Badge, Button } from '../../components/ui.tsx';
import { Value } from '../../components/Value.tsx';
import { compareNetworks, holds } from './networks.ts';
import { briefValue, filledForm } from './useAllocate.ts';

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
  assigned_object_type: string | null;
}

/** A run of free addresses (GET free-ranges): first and last with the prefix's mask, and how many (decimal text). */
interface FreeRange {
  start_address: string;
  end_address: string;
  size: string;
}

const ADDRESSES_SHOWN = 200;

type AddressRow = { kind: 'address'; address: Address } | { kind: 'free'; range: FreeRange };

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

/** `ams1-leaf1 › Ethernet1`: an assignment with its owner, each a link to its page. */
function Assignment({ a }: { a: Address }) {
  const o = a.assigned_object;
  if (!o) return <span className="text-slate-500">Not assigned</span>;
  const owner = o.device ? { model: 'dcim.device', brief: o.device } : o.virtual_machine ? { model: 'virtualization.virtualmachine', brief: o.virtual_machine } : null;
  const link = 'text-sky-700 hover:underline';
  const held = a.assigned_object_type ? (
    <Link className={link} to={paths.detail(a.assigned_object_type, o.id)}>
      {o.display}
    </Link>
  ) : (
    o.display
  );
  return owner ? (
    <span data-holder>
      <Link className={link} to={paths.detail(owner.model, owner.brief.id)}>
        {owner.brief.display}
      </Link>
      <span className="text-slate-400"> › </span>
      {held}
    </span>
  ) : (
    <span data-holder>{held}</span>
  );
}

const hostOf = (address: string) => address.split('/')[0]!;

/** `10.0.0.41–10.0.0.62 · 22 free`; one address alone as itself. */
function rangeText(r: FreeRange): string {
  const first = hostOf(r.start_address);
  const last = hostOf(r.end_address);
  const size = BigInt(r.size).toLocaleString();
  return `${first === last ? first : `${first}–${last}`} · ${size} free`;
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
      const [parents, children, free, addresses, freeRanges] = await Promise.all([
        get<Page<Prefix>>('/api/prefixes/', { contains: self.prefix, vrf_id: vrfQuery(self), mask_length__lte: Number(self.prefix.split('/')[1]) - 1, ordering: 'prefix', limit: 50 }),
        spansVrfs(self)
          ? get<Page<Prefix>>('/api/prefixes/', { within: self.prefix, ordering: 'prefix', limit: 500 }).then((page) => ({ ...page, results: topLevel(page.results) }))
          : get<Page<Prefix>>('/api/prefixes/', { within: self.prefix, vrf_id: vrfQuery(self), depth: self.depth + 1, ordering: 'prefix', limit: 500 }),
        get<Array<{ prefix: string }>>(`/api/prefixes/${self.id}/available-prefixes/`),
        get<Page<Address>>('/api/ip-addresses/', { parent: self.prefix, vrf_id: vrfQuery(self), ordering: 'address', limit: ADDRESSES_SHOWN }),
        // At most one run before each address shown, and the one after the last.
        get<FreeRange[]>(`/api/prefixes/${self.id}/free-ranges/`, { limit: ADDRESSES_SHOWN + 1 }),
      ]);
      return { parents: parents.results, children: children.results, more: children.next !== null, free, addresses, freeRanges };
    },
  });
  if (space.isLoading) return <Loading label="Reading the address space…" />;
  if (space.error) return <ErrorState error={space.error} retry={() => void space.refetch()} />;
  const { parents, children, more, free, addresses, freeRanges } = space.data!;
  // The addresses and the free runs between them in address order. When not every address is shown, runs past the
  // last one shown are left out: the list stops there.
  const lastShown = addresses.results.at(-1)?.address;
  const allShown = addresses.count <= addresses.results.length;
  const addressRows: AddressRow[] = [
    ...addresses.results.map((a) => ({ kind: 'address' as const, address: a })),
    ...freeRanges.filter((r) => allShown || (lastShown !== undefined && compareNetworks(hostOf(r.start_address), hostOf(lastShown)) < 0)).map((r) => ({ kind: 'free' as const, range: r })),
  ].sort((a, b) => compareNetworks(hostOf(a.kind === 'address' ? a.address.address : a.range.start_address), hostOf(b.kind === 'address' ? b.address.address : b.range.start_address)));
  const freeCount = freeRanges.reduce((n, r) => n + BigInt(r.size), 0n);
  const vrf = briefValue(self.vrf);
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
        <DataTable<SpaceRow>
          testId="prefix-space"
          align="middle"
          rows={rows}
          rowKey={(r) => (r.kind === 'prefix' ? r.prefix.id : r.network)}
          rowProps={(r) => (r.kind === 'free' ? { className: 'bg-green-50/60' } : {})}
          empty={
            unsplit ? (
              <Empty title="No child prefixes">All of {self.prefix} is free to split: Carve child prefix takes its first free block of the length you choose.</Empty>
            ) : (
              <Empty title="No child prefixes and no free space">Every address of this prefix is in a child prefix.</Empty>
            )
          }
          columns={[
            {
              key: 'prefix',
              header: 'Prefix',
              cell: (r) =>
                r.kind === 'prefix' ? (
                  <>
                    <PrefixLink p={r.prefix} />
                    {r.prefix.vrf && !self.vrf ? <span className="ml-2 text-slate-500">VRF {r.prefix.vrf.display}</span> : null}
                  </>
                ) : (
                  <span className="font-mono">{r.network}</span>
                ),
            },
            { key: 'status', header: 'Status', cell: (r) => (r.kind === 'prefix' ? (r.prefix.status?.display ?? '—') : <Badge tone="green">Available</Badge>) },
            {
              key: 'utilisation',
              header: 'Utilisation',
              span: (r) => (r.kind === 'free' ? 2 : 1),
              cell: (r) =>
                r.kind === 'prefix' ? (
                  <Value kind="percent" value={r.prefix.utilization} />
                ) : (
                  <span className="flex flex-wrap items-center gap-2">
                    <Link
                      {...filledForm('ipam.prefix', { prefix: r.network, vrf })}
                      className="rounded-md border border-slate-300 bg-white px-3 py-1.5 text-sm font-medium text-sky-700 hover:bg-slate-100"
                      aria-label={`Add prefix ${r.network}`}
                    >
                      Add prefix…
                    </Link>
                    <Button onClick={() => void claim(r.network)} disabled={claiming !== null} aria-label={`Create prefix ${r.network}`} title="Create it now, without the form">
                      {claiming === r.network ? 'Creating…' : 'Create at once'}
                    </Button>
                  </span>
                ),
            },
            { key: 'description', header: 'Description', cell: (r) => (r.kind === 'prefix' ? (r.prefix.description ?? '') : null) },
          ]}
        />
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
          IP addresses ({addresses.count.toLocaleString()})
          {allShown ? <span className="ml-2 font-normal text-slate-600">{freeCount.toLocaleString()} free</span> : null}
        </h2>
        <DataTable<AddressRow>
          testId="prefix-addresses"
          align="middle"
          rows={addressRows}
          rowKey={(r) => (r.kind === 'address' ? r.address.id : `free:${r.range.start_address}`)}
          rowProps={(r) => (r.kind === 'free' ? { className: 'bg-green-50/60', 'data-free-range': hostOf(r.range.start_address) } : {})}
          empty={<Empty title="No IP addresses in this prefix">It has no assignable address.</Empty>}
          columns={[
            {
              key: 'address',
              header: 'Address',
              span: (r) => (r.kind === 'free' ? 2 : 1),
              cell: (r) =>
                r.kind === 'address' ? (
                  <Link className="font-mono text-sky-700 hover:underline" to={paths.detail('ipam.ipaddress', r.address.id)}>
                    {r.address.address}
                  </Link>
                ) : (
                  <span className="font-mono">{rangeText(r.range)}</span>
                ),
            },
            { key: 'status', header: 'Status', cell: (r) => (r.kind === 'address' ? (r.address.status?.display ?? '—') : null) },
            {
              key: 'assigned',
              header: 'Assigned to',
              span: (r) => (r.kind === 'free' ? 2 : 1),
              cell: (r) =>
                r.kind === 'address' ? (
                  <Assignment a={r.address} />
                ) : (
                  <Link
                    {...filledForm('ipam.ipaddress', { address: r.range.start_address, vrf })}
                    className="text-sky-700 hover:underline"
                    aria-label={`Add an address in ${hostOf(r.range.start_address)}–${hostOf(r.range.end_address)}`}
                  >
                    Add an address ({hostOf(r.range.start_address)})
                  </Link>
                ),
            },
            { key: 'dns', header: 'DNS name', cell: (r) => (r.kind === 'address' ? r.address.dns_name : null) },
          ]}
        />
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
