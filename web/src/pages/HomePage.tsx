// Start page: the tenant at a glance (counts and problems, HomeGlance.tsx), then the domains with their lists,
// so the first screen is a map of what Cairn holds and what needs attention.
import { Link } from '@tanstack/react-router';
import { useMe, useModels } from '../api/hooks.ts';
import { modelGroups } from '../app/nav.ts';
import { ErrorState, Loading } from '../components/states.tsx';
import { PageHeader } from '../components/ui.tsx';
import { HomeGlance } from './HomeGlance.tsx';

export default function HomePage() {
  const me = useMe();
  const models = useModels();
  if (models.isLoading) return <Loading />;
  if (models.error) return <ErrorState error={models.error} retry={() => void models.refetch()} />;
  const groups = modelGroups(models.data ?? []);
  return (
    <div>
      <PageHeader title={`Welcome, ${me.data?.user.username ?? ''}`} subtitle={me.data?.active_tenant ? `Tenant ${me.data.active_tenant.name}` : 'No active tenant: choose one at the top right.'} />
      {me.data?.active_tenant ? <HomeGlance models={models.data ?? []} /> : null}
      <div className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
        {groups.map((g) => (
          <section key={g.label} className="rounded-lg border border-slate-200 bg-white p-4" aria-labelledby={`home-${g.label}`}>
            <h2 id={`home-${g.label}`} className="mb-2 font-semibold">
              {g.label}
            </h2>
            <ul className="flex flex-wrap gap-x-3 gap-y-1 text-sm">
              {g.entries.map((e) => (
                <li key={e.to}>
                  <Link to={e.to} className="text-sky-700 hover:underline">
                    {e.label}
                  </Link>
                </li>
              ))}
            </ul>
          </section>
        ))}
      </div>
    </div>
  );
}
