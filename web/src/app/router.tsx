// Assembles the route tree (core routes + every feature's routes) and creates the router.
import type { QueryClient } from '@tanstack/react-query';
import { createRouter } from '@tanstack/react-router';
import { featureRoutes } from '../features/index.ts';
import { appRoute, coreAppRoutes, loginRoute, rootRoute } from './routes.ts';
import './page-components.ts';
import { ErrorState, NotFound } from '../components/states.tsx';
import { isChunkLoadError, reloadOnceForChunkError } from './build-watch.tsx';

/**
 * A page or tab whose chunk is gone (a newer build replaced it) reloads once; other errors show with a retry.
 * Every lazy import failure ends here (route pages via lazyRouteComponent, tabs via React.lazy), so there is
 * one place that decides about reloading.
 */
function RouteError({ error, reset }: { error: unknown; reset: () => void }) {
  if (isChunkLoadError(error) && reloadOnceForChunkError(error)) return null;
  return (
    <div className="p-6">
      <ErrorState error={error} retry={reset} />
    </div>
  );
}

export function createAppRouter(queryClient: QueryClient) {
  const tree = rootRoute.addChildren([loginRoute, appRoute.addChildren([...coreAppRoutes, ...featureRoutes])]);
  return createRouter({
    routeTree: tree,
    context: { queryClient },
    defaultPreload: 'intent',
    defaultNotFoundComponent: NotFound,
    defaultErrorComponent: RouteError,
    scrollRestoration: true,
  });
}
