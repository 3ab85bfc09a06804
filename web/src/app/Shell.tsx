// The signed-in layout: top bar (search, tenant switcher, user menu) and the navigation by domain. On a narrow
// window the navigation folds behind a Menu button.
import { useEffect, useState, type FormEvent } from 'react';
import { Link, Outlet, useNavigate, useRouterState } from '@tanstack/react-router';
import { useQueryClient } from '@tanstack/react-query';
import { post } from '../api/client.ts';
import { keys, useMe, useModels } from '../api/hooks.ts';
import type { Me } from '../api/types.ts';
import { extraNavItems } from './extensions.ts';
import { modelGroups, type NavGroup } from './nav.ts';
import { useToast } from '../components/Toasts.tsx';
import { errorMessage } from '../components/states.tsx';

function TenantSwitcher({ me }: { me: Me }) {
  const client = useQueryClient();
  const toast = useToast();
  const [busy, setBusy] = useState(false);
  if (me.via !== 'session' || me.tenants.length === 0) return me.active_tenant ? <span className="text-sm text-slate-300">{me.active_tenant.name}</span> : null;
  const change = async (tenant: string) => {
    setBusy(true);
    try {
      const next = await post<Me>('/api/auth/tenant/', { tenant });
      client.setQueryData(keys.me, next);
      // Every other cached answer belonged to the previous tenant: drop them and refetch what is on screen.
      await client.resetQueries({ predicate: (q) => q.queryKey[0] !== keys.me[0] });
      toast.show({ message: `Switched to ${next.active_tenant?.name ?? 'tenant'}.`, tone: 'success' });
    } catch (err) {
      toast.show({ message: errorMessage(err), tone: 'error' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <label className="flex items-center gap-1 text-sm text-slate-300">
      <span className="sr-only sm:not-sr-only">Tenant</span>
      <select
        aria-label="Active tenant"
        disabled={busy}
        value={me.active_tenant?.id ?? ''}
        onChange={(e) => void change(e.target.value)}
        className="max-w-40 rounded border border-slate-600 bg-slate-800 px-1.5 py-1 text-sm text-white"
      >
        {me.active_tenant ? null : <option value="">Choose…</option>}
        {me.tenants.map((t) => (
          <option key={t.id} value={t.id}>
            {t.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function SearchBox() {
  const navigate = useNavigate();
  const [q, setQ] = useState('');
  // `/` goes to the search box from anywhere but a field being typed in (as on GitHub and NetBox).
  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
      const t = e.target as HTMLElement | null;
      if (t && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName))) return;
      e.preventDefault();
      document.getElementById('global-search')?.focus();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (q.trim()) void navigate({ to: '/search', search: { q: q.trim() } });
  };
  return (
    <form role="search" onSubmit={submit} className="min-w-0 flex-1 sm:max-w-md">
      <label className="sr-only" htmlFor="global-search">
        Search everything
      </label>
      <input
        id="global-search"
        type="search"
        value={q}
        onChange={(e) => setQ(e.target.value)}
        placeholder="Search devices, addresses, prefixes… (press /)"
        className="w-full rounded-md border border-slate-600 bg-slate-800 px-3 py-1.5 text-sm text-white placeholder:text-slate-400"
      />
    </form>
  );
}

function UserMenu({ me }: { me: Me }) {
  const client = useQueryClient();
  const navigate = useNavigate();
  const signOut = async () => {
    await post('/api/auth/logout/').catch(() => null);
    client.clear();
    void navigate({ to: '/login' });
  };
  return (
    <details className="relative">
      <summary className="cursor-pointer list-none rounded px-2 py-1 text-sm text-slate-200 hover:bg-slate-700">{me.user.username} ▾</summary>
      <div className="absolute right-0 z-30 mt-1 w-48 rounded-md border border-slate-200 bg-white py-1 text-sm text-slate-800 shadow-lg">
        <Link to="/preferences/tokens" className="block px-3 py-1.5 hover:bg-slate-100">
          API tokens
        </Link>
        <a href="/api/docs/" className="block px-3 py-1.5 hover:bg-slate-100">
          API reference
        </a>
        <button type="button" onClick={() => void signOut()} className="block w-full px-3 py-1.5 text-left hover:bg-slate-100">
          Sign out
        </button>
      </div>
    </details>
  );
}

function Nav({ groups, onNavigate }: { groups: NavGroup[]; onNavigate: () => void }) {
  const pathname = useRouterState({ select: (s) => s.location.pathname });
  return (
    <nav aria-label="Main" className="space-y-1 p-3 text-sm">
      <Link to="/" onClick={onNavigate} className="block rounded px-2 py-1 font-medium hover:bg-slate-200" activeOptions={{ exact: true }} activeProps={{ className: 'bg-slate-200' }}>
        Home
      </Link>
      {groups.map((g) => {
        const current = g.entries.some((e) => pathname === e.to || pathname.startsWith(`${e.to}/`));
        return (
          <details key={g.label} open={current || undefined} className="group">
            <summary className="cursor-pointer rounded px-2 py-1 font-medium text-slate-700 hover:bg-slate-200">{g.label}</summary>
            <ul className="mt-0.5 mb-1 ml-2 border-l border-slate-200 pl-2">
              {g.entries.map((e) => (
                <li key={e.to}>
                  <Link to={e.to} onClick={onNavigate} className="block rounded px-2 py-0.5 text-slate-700 hover:bg-slate-200" activeProps={{ className: 'bg-sky-100 text-sky-900 font-medium' }}>
                    {e.label}
                    {e.badge ? <e.badge /> : null}
                  </Link>
                </li>
              ))}
            </ul>
          </details>
        );
      })}
    </nav>
  );
}

export function Shell() {
  const me = useMe();
  const models = useModels();
  const [navOpen, setNavOpen] = useState(false);
  if (!me.data) return null;
  const groups = modelGroups(models.data ?? []);
  for (const item of extraNavItems(me.data)) {
    let group = groups.find((g) => g.label === item.group);
    if (!group) groups.push((group = { label: item.group, entries: [] }));
    group.entries.push({ label: item.label, to: item.to, badge: item.badge });
  }
  return (
    <div className="flex min-h-screen flex-col">
      {/* A page's own skip links go first (a list's "Skip to results"). */}
      <div id="skip-links" className="contents" />
      <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:z-50 focus:bg-white focus:p-2">
        Skip to content
      </a>
      <header className="sticky top-0 z-20 flex items-center gap-3 bg-slate-900 px-3 py-2 text-white">
        <button type="button" className="rounded px-2 py-1 text-sm hover:bg-slate-700 lg:hidden" aria-expanded={navOpen} aria-controls="main-nav" onClick={() => setNavOpen((o) => !o)}>
          Menu
        </button>
        <Link to="/" className="font-semibold tracking-wide">
          Cairn
        </Link>
        <SearchBox />
        <div className="ml-auto flex items-center gap-2">
          <TenantSwitcher me={me.data} />
          <UserMenu me={me.data} />
        </div>
      </header>
      <div className="flex flex-1">
        <aside id="main-nav" className={`${navOpen ? 'block' : 'hidden'} fixed inset-y-0 top-11 z-10 w-64 overflow-y-auto border-r border-slate-200 bg-slate-100 shadow-xl lg:sticky lg:shadow-none lg:top-11 lg:block lg:h-[calc(100vh-2.75rem)]`}>
          {models.isLoading ? <p className="p-3 text-sm text-slate-500">Loading…</p> : <Nav groups={groups} onNavigate={() => setNavOpen(false)} />}
        </aside>
        <main id="main" className="min-w-0 flex-1 p-4 lg:p-6">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
