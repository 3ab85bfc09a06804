// The route tree's fixed part: the root, the sign-in page, the signed-in layout (`appRoute`, which feature
// routes hang under) and the generic pages' routes. Which page draws each route is in page-components.ts, so the
// pages can import their route (typed params) without the route tree importing them back.
import type { QueryClient } from '@tanstack/react-query';
import { createRootRouteWithContext, createRoute, redirect } from '@tanstack/react-router';
import { ApiError } from '../api/client.ts';
import { listFieldsQuery, meQuery, modelsQuery, preferencesQuery } from '../api/hooks.ts';
import { RootLayout } from './RootLayout.tsx';
import { Shell } from './Shell.tsx';
import { ownEditorOf } from './paths.ts';

export interface RouterContext {
  queryClient: QueryClient;
}

export const rootRoute = createRootRouteWithContext<RouterContext>()({ component: RootLayout });

export const loginRoute = createRoute({
  getParentRoute: () => rootRoute,
  path: '/login',
  validateSearch: (s: Record<string, unknown>): { next?: string } => (typeof s.next === 'string' && s.next.startsWith('/') ? { next: s.next } : {}),
});

/** Every signed-in page renders inside this layout; an anonymous visitor is sent to /login and brought back. */
export const appRoute = createRoute({
  getParentRoute: () => rootRoute,
  id: 'app',
  beforeLoad: async ({ context, location }) => {
    try {
      await context.queryClient.ensureQueryData(meQuery);
      // Started now so navigation and the first page do not wait for them one after the other.
      void context.queryClient.prefetchQuery(modelsQuery);
      void context.queryClient.prefetchQuery(preferencesQuery);
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) throw redirect({ to: '/login', search: { next: location.href } });
      throw err;
    }
  },
  component: Shell,
});

export const homeRoute = createRoute({ getParentRoute: () => appRoute, path: '/' });

/** List search: limit/offset/ordering/q plus any API filter parameter, passed through to the list endpoint. */
export type ListSearch = Record<string, string | number | undefined>;

function listSearch(s: Record<string, unknown>): ListSearch {
  const out: ListSearch = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'limit' || k === 'offset') {
      const n = Number(v);
      if (Number.isInteger(n) && n >= 0) out[k] = n;
    } else if (typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean') out[k] = String(v);
  }
  return out;
}

export const listRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/objects/$model',
  validateSearch: listSearch,
  // The column catalog is fetched while the page's chunk loads, not after it.
  loader: ({ context, params }) => {
    void context.queryClient
      .ensureQueryData(modelsQuery)
      .then((models) => {
        const path = models.find((m) => m.model === params.model)?.path;
        if (path) void context.queryClient.prefetchQuery(listFieldsQuery(path));
      })
      .catch(() => undefined);
  },
});

export const createRouteDef = createRoute({
  getParentRoute: () => appRoute,
  path: '/objects/$model/new',
  // A model with an editor of its own is written there only: the generic form is not a second way.
  beforeLoad: ({ params }) => {
    const own = ownEditorOf(params.model);
    if (own) throw redirect({ href: own.create, replace: true });
  },
});

export const detailRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/objects/$model/$id',
  validateSearch: (s: Record<string, unknown>): { tab?: string } => (typeof s.tab === 'string' ? { tab: s.tab } : {}),
});

export const editRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/objects/$model/$id/edit',
  beforeLoad: ({ params }) => {
    const own = ownEditorOf(params.model);
    if (own) throw redirect({ href: own.edit(params.id), replace: true });
  },
});

export const searchRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/search',
  // q: the text; type: the one model whose hits are listed; page: from 1.
  validateSearch: (s: Record<string, unknown>): { q?: string; type?: string; page?: number } => ({
    ...(typeof s.q === 'string' ? { q: s.q } : typeof s.q === 'number' ? { q: String(s.q) } : {}),
    ...(typeof s.type === 'string' && /^[a-z]+\.[a-z0-9]+$/.test(s.type) ? { type: s.type } : {}),
    ...(typeof s.page === 'number' && Number.isInteger(s.page) && s.page > 1 ? { page: s.page } : {}),
  }),
});

export const tokensRoute = createRoute({
  getParentRoute: () => appRoute,
  path: '/preferences/tokens',
});

export const coreAppRoutes = [homeRoute, listRoute, createRouteDef, detailRoute, editRoute, searchRoute, tokensRoute];
