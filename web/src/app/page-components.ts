// Which page draws each core route, lazily (each page its own chunk). Kept apart from the route definitions
// (routes.ts), which the pages import for their typed params and search.
import { lazyRouteComponent } from '@tanstack/react-router';
import { createRouteDef, detailRoute, editRoute, homeRoute, listRoute, loginRoute, searchRoute, tokensRoute } from './routes.ts';

loginRoute.update({ component: lazyRouteComponent(() => import('../pages/LoginPage.tsx')) });
homeRoute.update({ component: lazyRouteComponent(() => import('../pages/HomePage.tsx')) });
listRoute.update({ component: lazyRouteComponent(() => import('../pages/list/ListPage.tsx')) });
createRouteDef.update({ component: lazyRouteComponent(() => import('../pages/edit/EditPage.tsx'), 'CreatePage') });
detailRoute.update({ component: lazyRouteComponent(() => import('../pages/detail/DetailPage.tsx')) });
editRoute.update({ component: lazyRouteComponent(() => import('../pages/edit/EditPage.tsx'), 'EditPage') });
searchRoute.update({ component: lazyRouteComponent(() => import('../pages/SearchPage.tsx')) });
tokensRoute.update({ component: lazyRouteComponent(() => import('../pages/preferences/TokensPage.tsx')) });
