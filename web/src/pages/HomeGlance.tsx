// The home page's fleet view: how much the tenant holds (each count a link to its list) and the problems to act
// on, each a link to the filtered list: devices on platforms past or near end of life, checks that are down,
// open compliance violations. Every figure is the `count` of a one-row list call, so it is what the list shows.
// Config drift is not here: it is found by rendering each device against its last push, too costly for a home page.
import { useQuery } from '@tanstack/react-query';
import { Link } from '@tanstack/react-router';
import { get, type Query } from '../api/client.ts';
import type { ModelInfo, Page } from '../api/types.ts';
import { paths } from '../app/paths.ts';

const KINDS = ['organization.site', 'dcim.rack', 'dcim.device', 'ipam.prefix', 'ipam.ipaddress', 'ipam.vlan', 'ipam.vrf'];

function useCount(path: string | undefined, query: Query = {}) {
  return useQuery({
    queryKey: ['count', path, query],
    queryFn: () => get<Page>(path!, { ...query, limit: 1 }).then((p) => p.count),
    enabled: path !== undefined,
  });
}

function Figure({ label, path, query, to, search, tone }: { label: string; path: string | undefined; query?: Query; to: string; search?: Record<string, string>; tone?: 'problem' }) {
  const count = useCount(path, query);
  const n = count.data;
  const shown = count.isLoading ? '…' : count.error ? '?' : String(n);
  const alarming = tone === 'problem' && (n ?? 0) > 0;
  return (
    <li>
      <Link to={to} search={search} className="flex items-baseline justify-between gap-3 rounded-md px-2 py-1 hover:bg-slate-50" aria-label={`${label}: ${shown}`}>
        <span className="text-sm text-slate-700">{label}</span>
        <span className={`text-lg font-semibold tabular-nums ${alarming ? 'text-red-700' : 'text-slate-900'}`} title={count.error ? 'Could not be counted' : undefined}>
          {shown}
        </span>
      </Link>
    </li>
  );
}

export function HomeGlance({ models }: { models: ModelInfo[] }) {
  const byName = new Map(models.filter((m) => m.can.view).map((m) => [m.model, m]));
  const eol = useQuery({ queryKey: ['eol-settings'], queryFn: () => get<{ enabled: boolean }>('/api/eol/settings/') });
  const device = byName.get('dcim.device');
  const checks = byName.get('monitoring.checkassignment');
  const rules = byName.get('compliance.rule');
  const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
  return (
    <div className="mb-6 grid gap-4 md:grid-cols-2">
      <section className="rounded-lg border border-slate-200 bg-white p-4" aria-labelledby="home-counts">
        <h2 id="home-counts" className="mb-2 font-semibold">
          In this tenant
        </h2>
        <ul className="grid gap-x-6 sm:grid-cols-2">
          {KINDS.filter((k) => byName.has(k)).map((k) => {
            const m = byName.get(k)!;
            return <Figure key={k} label={cap(m.label_plural)} path={m.path} to={paths.list(k)} />;
          })}
        </ul>
      </section>
      <section className="rounded-lg border border-slate-200 bg-white p-4" aria-labelledby="home-problems">
        <h2 id="home-problems" className="mb-2 font-semibold">
          To look at
        </h2>
        <ul>
          {device && eol.data?.enabled ? (
            <>
              <Figure label="Devices on end-of-life platforms" path={device.path} query={{ eol: 'eol' }} to={paths.list('dcim.device')} search={{ eol: 'eol' }} tone="problem" />
              <Figure label="Devices on platforms nearing end of life" path={device.path} query={{ eol: 'ending' }} to={paths.list('dcim.device')} search={{ eol: 'ending' }} tone="problem" />
            </>
          ) : device && eol.data ? (
            <li className="px-2 py-1 text-sm text-slate-500">End-of-life data is off: no platform is judged.</li>
          ) : null}
          {checks ? <Figure label="Checks down" path={checks.path} query={{ state: 'down' }} to={paths.list('monitoring.checkassignment')} search={{ state: 'down' }} tone="problem" /> : null}
          {rules ? <Figure label="Open compliance violations" path="/api/compliance/violations/" to="/compliance" tone="problem" /> : null}
        </ul>
      </section>
    </div>
  );
}
